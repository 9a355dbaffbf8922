/**
 * Write limits and back-pressure for `strata serve` (Thanos Receive's
 * limits configuration, plus Strata's memory rule): the limiter every
 * remote write goes through, the memory sampler and the file reloader,
 * started and stopped together.
 *
 * ```ts
 * const limits = startWriteLimits({ tenantLabel: 'tenant_id', memory: { heapRatio: 0.9, anonBytes: 0 }, reloadIntervalMs: 1000,
 *   source: { loaded: loadLimitsFile('limits.yaml'), file: 'limits.yaml' } }, log);
 * // hand limits.limiter to the HTTP routes and the gRPC server
 * await limits.stop();
 * ```
 */
import type { LoadedLimits } from './config-source.js';
import { LimitsReloader, type ReloadCounters } from './limits-reloader.js';
import { MemoryPressure, type MemoryRule } from './memory-pressure.js';
import { WriteLimiter } from './write-limiter.js';

export { expandEnv, loadLimitsFile, loadLimitsText, type LoadedLimits } from './config-source.js';
export { LimitsConfigError, NO_LIMITS, parseLimitsConfig, type LimitsConfig, type TenantLimits } from './limits-config.js';
export { MemoryPressure, type MemoryRule } from './memory-pressure.js';
export { REFUSAL_REASONS, REQUEST_LIMITS, type RefusalReason } from './refusals.js';
export type { ReloadCounters } from './limits-reloader.js';
export { WriteLimiter, type HeadSeriesCounter, type WriteAdmission } from './write-limiter.js';

interface Log {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

export interface WriteLimitsOptions {
  /** --tenant-label-name. */
  tenantLabel: string;
  /** The configuration read at start; `file` is reloaded when it changes. None: no limits. */
  source?: { loaded: LoadedLimits; file?: string };
  /** --receive.limits-config-reload-timer. */
  reloadIntervalMs: number;
  /** --receive.heap-limit-ratio and --receive.memory-limit. */
  memory: MemoryRule;
}

/** The limiter and what keeps it current. */
export interface RunningWriteLimits {
  readonly limiter: WriteLimiter;
  /** Whether a limits configuration was given. */
  readonly configured: boolean;
  /** Reloads of the file, when there is one. */
  readonly reloads: ReloadCounters | undefined;
  /** Stops the reloader and the memory sampler. */
  stop(): Promise<void>;
}

/** Builds the limiter from `opts` and starts the memory sampler and, for a file, the reloader. */
export function startWriteLimits(opts: WriteLimitsOptions, log: Log): RunningWriteLimits {
  const memory = new MemoryPressure(opts.memory, (reason, sample) => {
    if (reason !== undefined) log.warn({ ...sample, reason }, 'memory pressure: writes are answered 503 until it passes');
    else log.info({ ...sample }, 'memory pressure passed: writes are taken again');
  });
  const config = opts.source?.loaded.config;
  const limiter = new WriteLimiter(config, { tenantLabel: opts.tenantLabel, memory });
  memory.start();
  if (config !== undefined) {
    log.info({ file: opts.source?.file, maxConcurrency: config.maxConcurrency, default: config.defaults, tenants: [...config.tenants.keys()] }, 'write limits in place');
    if (config.ignored.length > 0) log.warn({ keys: config.ignored }, 'limits configuration: meta-monitoring keys are ignored (Strata counts head series itself)');
  }
  const file = opts.source?.file;
  const reloader = file === undefined ? undefined : new LimitsReloader(file, opts.source!.loaded.text, (c) => limiter.update(c), log);
  reloader?.start(opts.reloadIntervalMs);
  return {
    limiter,
    configured: config !== undefined,
    reloads: reloader?.counters,
    async stop() {
      memory.stop();
      await reloader?.stop();
    },
  };
}
