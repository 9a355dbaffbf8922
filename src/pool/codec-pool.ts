import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import {
  viewChunkBatch, viewSampleBatch,
  type ChunkBatch, type CodecTask, type SampleBatch,
} from './batches.js';

export interface CodecPoolOptions {
  /** Worker threads; defaults to the number of cores. */
  workers?: number;
}

// The worker runs from the same tree as this file: .ts under tsx, .js once built.
const workerExt = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const workerUrl = new URL(`./codec-worker${workerExt}`, import.meta.url);

/** Buffers of `views` that can be moved: only those the views cover whole. */
function transferable(...views: ArrayBufferView[]): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>();
  for (const v of views) {
    if (v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) seen.add(v.buffer);
  }
  return [...seen];
}

/**
 * A piscina pool whose workers each load the WebAssembly codec once and
 * encode or decode batches of many chunks off the event loop.
 *
 * Ownership: with `{ transfer: true }` the input arrays' buffers are moved
 * to the worker (the caller's arrays become empty); otherwise they are
 * copied. Results belong to the caller.
 */
export class CodecPool {
  private readonly piscina: Piscina;

  constructor(options: CodecPoolOptions = {}) {
    const workers = options.workers ?? availableParallelism();
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers must be a positive integer, got ${workers}`);
    this.piscina = new Piscina({
      filename: workerUrl.href,
      minThreads: workers,
      maxThreads: workers,
      idleTimeout: Number.POSITIVE_INFINITY,
    });
  }

  /** Worker threads in the pool. */
  get threads(): number {
    return this.piscina.options.maxThreads;
  }

  /** Encodes each series of `batch` as one chunk. */
  async encode(batch: SampleBatch, { transfer = false } = {}): Promise<ChunkBatch> {
    const task: CodecTask = { op: 'encode', batch };
    const transferList = transfer ? transferable(batch.timestamps, batch.values, batch.offsets) : [];
    const buffer: ArrayBuffer = await this.piscina.run(task, { transferList });
    return viewChunkBatch(buffer);
  }

  /** Decodes each chunk of `batch`; series i of the answer is chunk i. */
  async decode(batch: ChunkBatch, { transfer = false } = {}): Promise<SampleBatch> {
    const task: CodecTask = { op: 'decode', batch };
    const transferList = transfer ? transferable(batch.data, batch.offsets) : [];
    const buffer: ArrayBuffer = await this.piscina.run(task, { transferList });
    return viewSampleBatch(buffer);
  }

  /** Waits for running tasks, then stops the workers. */
  async close(): Promise<void> {
    await this.piscina.close();
  }
}
