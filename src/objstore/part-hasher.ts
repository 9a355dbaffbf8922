import { Worker } from 'node:worker_threads';

/**
 * One part to hash: a view of a SharedArrayBuffer, and which sums. With
 * `fd`, the thread first fills the view from that file at `position`.
 */
export interface HashJob {
  id: number;
  buffer: SharedArrayBuffer;
  offset: number;
  length: number;
  md5: boolean;
  sha256: boolean;
  fd?: number;
  position?: number;
}

/** The sums of one part: Content-MD5 (base64) and SigV4's payload hash (hex), those asked for. */
export interface HashSums {
  md5?: string;
  sha256?: string;
}

/** What the thread answers: the sums, or why it could not. */
interface HashReply extends HashSums {
  id: number;
  error?: string;
}

/**
 * The bytes read and hashed at a time: small enough to be hashed by both
 * sums while still in the core's cache after the read (one pass over the
 * part from memory rather than three: read, MD5, SHA-256).
 */
export const READ_PIECE = 256 * 1024;

/**
 * The thread's whole program: fills the job's view of shared memory from
 * the file when it names one (piece by piece, each hashed right after it
 * is read), or hashes the view as it is (never copied), and answers the
 * sums. A script of its own rather than a module file, so that it runs the
 * same from src/ under a loader (tests, tsx) as from dist/.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { readSync } = require('node:fs');
const PIECE = ${READ_PIECE};
parentPort.on('message', (job) => {
  const bytes = new Uint8Array(job.buffer, job.offset, job.length);
  const md5 = job.md5 ? createHash('md5') : undefined;
  const sha = job.sha256 ? createHash('sha256') : undefined;
  try {
    if (job.fd === undefined) {
      md5?.update(bytes);
      sha?.update(bytes);
    } else {
      for (let at = 0; at < job.length; ) {
        const n = readSync(job.fd, bytes, at, Math.min(PIECE, job.length - at), job.position + at);
        if (n === 0) throw new Error('file shrank while uploading: ' + (job.position + at) + ' bytes read');
        const piece = bytes.subarray(at, at + n);
        md5?.update(piece);
        sha?.update(piece);
        at += n;
      }
    }
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: String(err && err.message || err) });
    return;
  }
  const sums = { id: job.id };
  if (md5) sums.md5 = md5.digest('base64');
  if (sha) sums.sha256 = sha.digest('hex');
  parentPort.postMessage(sums);
});
`;

/** How long the thread outlives the last part hashed: one upload follows another within it when the shipper ships. */
export const HASHER_IDLE_MS = 5_000;

/**
 * Hashes upload parts on a thread of its own, so that the main thread
 * sends one part while the next is hashed (MD5 at about 2 ns a byte, as
 * much as the rest of an upload's CPU). Parts live in SharedArrayBuffers
 * (PartBuffers), read by the thread in place; a part of a file can be
 * read by the thread too, hashed as it comes (readAndHash). The thread
 * goes after HASHER_IDLE_MS without work and never keeps the process
 * alive while nothing is asked.
 */
export class PartHasher {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: (s: HashSums) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(private readonly want: { md5: boolean; sha256: boolean }) {}

  /** The sums of `part`, a view of a SharedArrayBuffer left untouched until they come. */
  hash(part: Uint8Array): Promise<HashSums> {
    return this.ask(part, undefined, 0);
  }

  /**
   * Fills `into` (a view of a SharedArrayBuffer) with its length of bytes
   * of the open file `fd` from `position`, and answers their sums. `fd`
   * must stay open until the answer comes.
   */
  readAndHash(fd: number, position: number, into: Uint8Array): Promise<HashSums> {
    return this.ask(into, fd, position);
  }

  /** Stops the thread; parts still asked for fail. */
  async close(): Promise<void> {
    this.stopIdle();
    const w = this.worker;
    this.worker = undefined;
    if (w !== undefined) await w.terminate();
    this.failAll(new Error('part hasher closed'));
  }

  private ask(part: Uint8Array, fd: number | undefined, position: number): Promise<HashSums> {
    if (!(part.buffer instanceof SharedArrayBuffer)) throw new TypeError('PartHasher hashes parts in a SharedArrayBuffer');
    this.stopIdle();
    const w = this.start();
    const id = this.nextId++;
    const job: HashJob = { id, buffer: part.buffer, offset: part.byteOffset, length: part.byteLength, ...this.want, ...(fd !== undefined ? { fd, position } : {}) };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) w.ref();
      w.postMessage(job);
    });
  }

  private idleSoon(): void {
    this.stopIdle();
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.waiting.size === 0) void this.close();
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
    w.on('message', (reply: HashReply) => {
      const p = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) {
        w.unref();
        this.idleSoon();
      }
      if (reply.error !== undefined) p?.reject(new Error(reply.error));
      else p?.resolve({ ...(reply.md5 !== undefined ? { md5: reply.md5 } : {}), ...(reply.sha256 !== undefined ? { sha256: reply.sha256 } : {}) });
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
