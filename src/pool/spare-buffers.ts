/**
 * Buffers that go back and forth between the event loop and the pool's
 * workers, reused rather than allocated for every request: request bodies
 * (read on the event loop, moved to a worker, moved back once parsed),
 * append batches and histogram batches (written by a worker into a buffer
 * it was given, moved to the event loop, given back once appended).
 *
 * Why: V8 counts every ArrayBuffer that arrives from another thread as new
 * external memory, and a full garbage collection follows every ~64 MB of
 * it. At a million samples a second that was a full collection of the
 * event loop's heap several times a second, and the dead buffers waiting
 * for it made up much of the resident memory. A buffer moved away and
 * back is counted once.
 */
import { collectWhenQuiet } from './collect.js';

/** At most this many spare buffers are kept, of at most SPARE_MAX_BYTES each and KEEP_BYTES in all. */
const KEEP = 16;
/** The largest buffer kept: a larger one is left to the garbage collector. */
export const SPARE_MAX_BYTES = 16 << 20;
/**
 * What the spares of one kind may hold in all: enough for 16 requests of
 * 2 MiB in flight (Prometheus sends far smaller ones), little enough that
 * a burst of large bodies does not keep the process large (issue 25).
 */
const KEEP_BYTES = 32 << 20;

/** A size worth allocating for `n` bytes: the next power of two, at least 64 KiB, so that buffers fit many requests. */
export function roundedSize(n: number): number {
  return n <= 65536 ? 65536 : 2 ** Math.ceil(Math.log2(n));
}

export class SpareBuffers {
  private readonly spare: ArrayBuffer[] = [];
  /** Bytes of the buffers in `spare`. */
  private kept = 0;
  /** Buffers handed out by take() and not shared with anything else (see exclusive()). */
  private readonly ours = new WeakSet<ArrayBuffer>();

  /** A spare buffer of at least `n` bytes, or undefined when none is kept. */
  take(n: number): ArrayBuffer | undefined {
    const s = this.spare;
    for (let i = s.length - 1; i >= 0; i--) {
      const b = s[i]!;
      if (b.byteLength < n) continue;
      s[i] = s[s.length - 1]!;
      s.pop();
      this.kept -= b.byteLength;
      return b;
    }
    return undefined;
  }

  /** A buffer of at least `n` bytes that no other view shares: a spare, or a new one. */
  takeOrAllocate(n: number): ArrayBuffer {
    const b = this.take(n) ?? new ArrayBuffer(roundedSize(n));
    this.ours.add(b);
    return b;
  }

  /** Whether `b` came from takeOrAllocate() (no view outside its holder's shares it). */
  exclusive(b: ArrayBufferLike): boolean {
    return b instanceof ArrayBuffer && this.ours.has(b);
  }

  /**
   * Keeps `b` for a later take() (unless detached, too large, or enough
   * are kept). A buffer not kept is garbage: the event loop collects once
   * such drops stop (collect.ts).
   */
  give(b: ArrayBuffer): void {
    const n = b.byteLength;
    if (n === 0) return;
    if (n > SPARE_MAX_BYTES || this.spare.length >= KEEP || this.kept + n > KEEP_BYTES) {
      collectWhenQuiet(n);
      return;
    }
    this.spare.push(b);
    this.kept += n;
  }
}

/** This thread's spare request bodies. */
export const bodyBuffers = new SpareBuffers();
/** This thread's spare append-batch buffers (given to the workers with each parse task). */
export const batchBuffers = new SpareBuffers();
/** This thread's spare histogram-batch buffers (given to the workers with each parse task, as batchBuffers). */
export const histogramBatchBuffers = new SpareBuffers();

/**
 * `n` bytes for a decoded request body: from bodyBuffers from 16 KiB on
 * (large bodies come and go at the request rate), else a new Buffer.
 */
export function bodyBytes(n: number): Buffer {
  return n >= 16 * 1024 ? Buffer.from(bodyBuffers.takeOrAllocate(n), 0, n) : Buffer.allocUnsafe(n);
}
