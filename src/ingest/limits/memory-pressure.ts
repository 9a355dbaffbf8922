/**
 * Memory pressure: the rule that makes writes answer 503 (Retry-After)
 * before the process falls over, measured on a timer so that a write only
 * reads a boolean.
 *
 * The rule: under pressure while either
 * - the main JavaScript heap uses more than `heapRatio` of V8's heap limit
 *   (`used_heap_size / heap_size_limit` of v8.getHeapStatistics()): past
 *   it V8 collects garbage back to back, and at the limit the process dies
 *   with "JavaScript heap out of memory"; or
 * - the process' anonymous resident memory is above `anonBytes`: RssAnon of
 *   /proc/self/status on Linux (the heaps, the WebAssembly memories of the
 *   head, buffers: what the kernel cannot drop), RSS elsewhere. Memory-
 *   mapped files (head chunks, blocks) are left out: the kernel drops their
 *   pages as it needs, and counting them would refuse writes on a machine
 *   that merely has page cache to spare. Set it below the container's
 *   memory limit (e.g. 80 %), which the OOM killer enforces.
 * A measure at 0 is off. The state is sampled every SAMPLE_INTERVAL_MS.
 */
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

/** What the rule looks at. */
export interface MemoryRule {
  /** Refuse while heap used / heap limit is above this (0: off). */
  heapRatio: number;
  /** Refuse while anonymous resident bytes are above this (0: off). */
  anonBytes: number;
}

/** One measurement. */
export interface MemorySample {
  heapUsed: number;
  heapLimit: number;
  /** Anonymous resident bytes (RSS where the platform does not tell). */
  anon: number;
}

/**
 * How often memory is measured. A write costs a few MB at most (bodies are
 * bounded by --http-max-body-bytes); at thousands of writes a second that
 * is some hundred MB a second at worst, so 100 ms keeps the overshoot to
 * tens of MB. A measurement costs about 20 µs (a read of /proc).
 */
export const SAMPLE_INTERVAL_MS = 100;

const KB = 1024;

/** Anonymous resident bytes of this process: RssAnon on Linux, RSS elsewhere. */
export function anonResidentBytes(): number {
  try {
    const status = readFileSync('/proc/self/status', 'latin1');
    const m = /^RssAnon:\s+(\d+) kB$/m.exec(status);
    if (m !== null) return Number(m[1]) * KB;
  } catch {
    // not Linux
  }
  return process.memoryUsage.rss();
}

function measure(rule: MemoryRule): MemorySample {
  const heap = getHeapStatistics();
  return { heapUsed: heap.used_heap_size, heapLimit: heap.heap_size_limit, anon: rule.anonBytes > 0 ? anonResidentBytes() : 0 };
}

const MiB = (n: number): string => `${Math.round(n / 2 ** 20)} MiB`;

/** Why `sample` is under pressure by `rule`, or undefined when it is not. */
export function pressureReason(rule: MemoryRule, sample: MemorySample): string | undefined {
  if (rule.heapRatio > 0 && sample.heapUsed > rule.heapRatio * sample.heapLimit) {
    return `the JavaScript heap uses ${MiB(sample.heapUsed)} of its ${MiB(sample.heapLimit)} limit, more than the ${rule.heapRatio} allowed (--receive.heap-limit-ratio)`;
  }
  if (rule.anonBytes > 0 && sample.anon > rule.anonBytes) {
    return `the process holds ${MiB(sample.anon)} of anonymous memory, more than the ${MiB(rule.anonBytes)} allowed (--receive.memory-limit)`;
  }
  return undefined;
}

/** Told when the state changes: the reason while under pressure, undefined when it ends. */
export type PressureListener = (reason: string | undefined, sample: MemorySample) => void;

/**
 * The memory state, sampled on a timer (unref'd: it keeps no process
 * alive). Call start() once and stop() when done.
 */
export class MemoryPressure {
  private why: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly rule: MemoryRule,
    private readonly onChange: PressureListener = () => {},
    private readonly sampler: (rule: MemoryRule) => MemorySample = measure,
  ) {}

  /** Whether the rule can ever apply. */
  get enabled(): boolean {
    return this.rule.heapRatio > 0 || this.rule.anonBytes > 0;
  }

  /** Why writes are refused now, undefined when they are not. */
  get reason(): string | undefined {
    return this.why;
  }

  /** Measures now, then every SAMPLE_INTERVAL_MS. Does nothing when the rule is off. */
  start(intervalMs = SAMPLE_INTERVAL_MS): void {
    if (!this.enabled || this.timer !== undefined) return;
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Measures now and updates the state. */
  sample(): void {
    const s = this.sampler(this.rule);
    const why = pressureReason(this.rule, s);
    if ((why === undefined) !== (this.why === undefined)) this.onChange(why, s);
    this.why = why;
  }
}
