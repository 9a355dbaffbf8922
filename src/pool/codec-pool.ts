import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { malformedRequest } from '../store/write/errors.js';
import type { ParsedWrite, ParseWriteOptions } from '../store/write/parse-write.js';
import { planBuffers, type SamplesPlan } from '../http/prometheus/read-samples.js';
import type { PoolStats } from '../metrics/strata-metrics.js';
import { SnappyBodyError } from './snappy-block.js';
import {
  viewChunkBatch, viewSampleBatch,
  type ChunkBatch, type CodecTask, type ParseWriteAnswer, type SampleBatch,
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
 * A piscina pool whose workers each load the WebAssembly module once and
 * encode or decode batches of many chunks, or parse remote-write requests,
 * off the event loop.
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

  /**
   * Parses a remote-write request in a worker (see parseWriteRequest in
   * src/store/write/parse-write.ts for what it checks and answers).
   *
   * Ownership: when `bytes` covers its whole ArrayBuffer, that buffer is
   * moved to the worker and `bytes` is empty (detached) afterwards;
   * otherwise exactly its bytes are copied (one copy, then moved) and
   * `bytes`, with the buffer it views, is left as it was. The answer's
   * batch was moved back, not copied, and belongs to the caller.
   *
   * @throws MalformedRequestError when the bytes are not a valid message.
   */
  async parseWrite(bytes: Uint8Array, opts: ParseWriteOptions, body: { snappy?: { maxDecodedBytes: number } } = {}): Promise<ParsedWrite> {
    // Cloning a view clones its whole buffer (a Node Buffer may be a slice
    // of a much larger one): copy just the bytes instead, and move the copy.
    // `new Uint8Array(view)` copies; Buffer#slice would not (it is subarray).
    const owned = transferable(bytes).length === 1 ? bytes : new Uint8Array(bytes);
    const task: CodecTask = body.snappy === undefined ? { op: 'parseWrite', bytes: owned, opts } : { op: 'parseWrite', bytes: owned, opts, snappy: body.snappy };
    const answer: ParseWriteAnswer = await this.piscina.run(task, { transferList: [owned.buffer as ArrayBuffer] });
    if (!answer.ok) throw 'snappy' in answer ? new SnappyBodyError(answer.snappy, answer.message) : malformedRequest(answer.offset, answer.detail);
    return answer.parsed;
  }

  /**
   * The snappy-compressed prometheus.ReadResponse of a remote-read SAMPLES
   * answer (src/http/prometheus/read-samples.ts): chunks decoded, message
   * encoded and compressed in a worker. The plan's buffers are moved to the
   * worker; the answer belongs to the caller.
   */
  async readSamples(plan: SamplesPlan): Promise<Uint8Array> {
    const task: CodecTask = { op: 'readSamples', plan };
    const buffer: ArrayBuffer = await this.piscina.run(task, { transferList: planBuffers(plan) });
    return new Uint8Array(buffer);
  }

  /** The pool's state for metrics: threads, queue, tasks done, and piscina's run and wait time summaries (ms). */
  stats(): PoolStats {
    const p = this.piscina;
    const { runTime, waitTime } = p.histogram;
    return { threads: p.threads.length, queueSize: p.queueSize, completed: p.completed, utilization: p.utilization, runTime, waitTime };
  }

  /** Waits for running tasks, then stops the workers. */
  async close(): Promise<void> {
    await this.piscina.close();
  }
}
