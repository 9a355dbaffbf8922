import { Worker } from 'node:worker_threads';

/** One part to hash: a view of a SharedArrayBuffer, and which sums. */
export interface HashJob {
  id: number;
  buffer: SharedArrayBuffer;
  offset: number;
  length: number;
  md5: boolean;
  sha256: boolean;
}

/** The sums of one part: Content-MD5 (base64) and SigV4's payload hash (hex), those asked for. */
export interface HashSums {
  id: number;
  md5?: string;
  sha256?: string;
}

/**
 * The thread's whole program: hashes the view of shared memory each job
 * names (never copied) and answers the sums. A script of its own rather
 * than a module file, so that it runs the same from src/ under a loader
 * (tests, tsx) as from dist/.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
parentPort.on('message', (job) => {
  const bytes = new Uint8Array(job.buffer, job.offset, job.length);
  const sums = { id: job.id };
  if (job.md5) sums.md5 = createHash('md5').update(bytes).digest('base64');
  if (job.sha256) sums.sha256 = createHash('sha256').update(bytes).digest('hex');
  parentPort.postMessage(sums);
});
`;

/** How long the thread and the part buffers outlive the last part hashed: one upload follows another within it when the shipper ships. */
export const HASHER_IDLE_MS = 5_000;

/**
 * Hashes upload parts on a thread of its own, so that the main thread
 * sends one part while the next is hashed (MD5 at about 2 ns a byte, as
 * much as the rest of an upload's CPU), and lends the two part buffers it
 * hashes (SharedArrayBuffers, read by the thread in place). The buffers
 * are reused from one upload to the next; the thread and the buffers go
 * after HASHER_IDLE_MS without work (the thread's views would otherwise
 * keep old buffers alive until its rare garbage collection). Neither
 * keeps the process alive while nothing is asked.
 */
export class PartHasher {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: (s: HashSums) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private spare: Buffer[] | undefined;
  private lent = false;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly want: { md5: boolean; sha256: boolean }) {}

  /** Two part buffers of `partSize` bytes: the spare pair when free and of that size, else a pair of their own. */
  take(partSize: number): Buffer[] {
    this.stopIdle();
    if (!this.lent && this.spare !== undefined && this.spare[0]!.length === partSize) {
      this.lent = true;
      return this.spare;
    }
    const pair = [sharedPart(partSize), sharedPart(partSize)];
    if (!this.lent) {
      this.spare = pair;
      this.lent = true;
    }
    return pair;
  }

  /** Gives back what take() lent. */
  give(buffers: Buffer[]): void {
    if (buffers === this.spare) this.lent = false;
    this.idleSoon();
  }

  hash(part: Uint8Array): Promise<HashSums> {
    if (!(part.buffer instanceof SharedArrayBuffer)) throw new TypeError('PartHasher hashes parts in a SharedArrayBuffer');
    this.stopIdle();
    const w = this.start();
    const id = this.nextId++;
    const job: HashJob = { id, buffer: part.buffer, offset: part.byteOffset, length: part.byteLength, ...this.want };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) w.ref();
      w.postMessage(job);
    });
  }

  /** Stops the thread and drops the buffers; parts still asked for fail. */
  async close(): Promise<void> {
    this.stopIdle();
    await this.stop();
  }

  private async stop(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (!this.lent) this.spare = undefined;
    if (w !== undefined) await w.terminate();
    this.failAll(new Error('part hasher closed'));
  }

  private idleSoon(): void {
    this.stopIdle();
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.waiting.size === 0 && !this.lent) void this.stop();
    }, HASHER_IDLE_MS);
    this.idle.unref();
  }

  private stopIdle(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
  }

  private start(): Worker {
    if (this.worker !== undefined) return this.worker;
    const w = new Worker(WORKER_SOURCE, { eval: true });
    w.unref();
    w.on('message', (sums: HashSums) => {
      const p = this.waiting.get(sums.id);
      this.waiting.delete(sums.id);
      if (this.waiting.size === 0) w.unref();
      p?.resolve(sums);
    });
    w.on('error', (err) => {
      if (this.worker === w) this.worker = undefined;
      this.failAll(err);
    });
    w.on('exit', () => {
      if (this.worker === w) this.worker = undefined;
      this.failAll(new Error('part hasher thread exited'));
    });
    this.worker = w;
    return w;
  }

  private failAll(err: Error): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const p of all) p.reject(err);
  }
}

/** A part buffer the hasher's thread can read: a Buffer over a SharedArrayBuffer. */
function sharedPart(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size));
}
