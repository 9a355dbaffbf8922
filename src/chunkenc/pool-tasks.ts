/**
 * Chunk batches encoded and decoded in the worker pool: one task message
 * carries many series (or chunks) as column batches (src/pool/batches.ts),
 * so a worker runs the WebAssembly codec over all of them in one call.
 */
import {
  allocSampleBatch, checkOffsets, packChunkBatch, viewChunkBatch, viewSampleBatch,
  type ChunkBatch, type SampleBatch,
} from '../pool/batches.js';
import type { PoolTask, TaskRunner } from '../pool/task.js';
import { moved, transferable } from '../pool/transfer.js';
import { threadCodec } from './xor/impl.js';
import { chunkSampleCount } from './xor/wasm-codec.js';

interface EncodeMessage {
  op: 'encode';
  batch: SampleBatch;
}

interface DecodeMessage {
  op: 'decode';
  batch: ChunkBatch;
}

/** Worker half: each series of the batch encoded as one chunk, answered as a packed ChunkBatch (moved back). */
export const encodeTask: PoolTask<EncodeMessage> = {
  op: 'encode',
  run: ({ batch }) => moved(encodeBatch(batch)),
};

/** Worker half: each chunk decoded, answered as a packed SampleBatch (moved back). */
export const decodeTask: PoolTask<DecodeMessage> = {
  op: 'decode',
  run: ({ batch }) => moved(decodeBatch(batch)),
};

/**
 * Encodes each series of `batch` as one chunk, in a worker.
 *
 * Ownership: with `{ transfer: true }` the input arrays' buffers are moved
 * to the worker (the caller's arrays become empty); otherwise they are
 * copied. The answer belongs to the caller.
 */
export async function encodeInPool(pool: TaskRunner, batch: SampleBatch, { transfer = false } = {}): Promise<ChunkBatch> {
  const message: EncodeMessage = { op: 'encode', batch };
  const transferList = transfer ? transferable(batch.timestamps, batch.values, batch.offsets) : [];
  return viewChunkBatch(await pool.run<ArrayBuffer>(message, transferList));
}

/** Decodes each chunk of `batch` in a worker; series i of the answer is chunk i. Ownership as encodeInPool. */
export async function decodeInPool(pool: TaskRunner, batch: ChunkBatch, { transfer = false } = {}): Promise<SampleBatch> {
  const message: DecodeMessage = { op: 'decode', batch };
  const transferList = transfer ? transferable(batch.data, batch.offsets) : [];
  return viewSampleBatch(await pool.run<ArrayBuffer>(message, transferList));
}

function encodeBatch({ timestamps, values, offsets }: SampleBatch): ArrayBuffer {
  checkOffsets(offsets, timestamps.length, 'encode');
  if (values.length !== timestamps.length) {
    throw new RangeError(`encode: ${timestamps.length} timestamps but ${values.length} values`);
  }
  const codec = threadCodec();
  const chunks: Uint8Array[] = [];
  for (let i = 0; i + 1 < offsets.length; i++) {
    const from = offsets[i]!;
    const to = offsets[i + 1]!;
    try {
      chunks.push(codec.encode(timestamps.subarray(from, to), values.subarray(from, to)));
    } catch (err) {
      throw new Error(`series ${i}: ${(err as Error).message}`, { cause: err });
    }
  }
  return packChunkBatch(chunks);
}

function decodeBatch({ data, offsets }: ChunkBatch): ArrayBuffer {
  checkOffsets(offsets, data.length, 'decode');
  const codec = threadCodec();
  const chunks = offsets.length - 1;
  let samples = 0;
  for (let i = 0; i < chunks; i++) samples += chunkSampleCount(data.subarray(offsets[i]!, offsets[i + 1]!));
  const { buffer, batch } = allocSampleBatch(samples, chunks);
  for (let i = 0; i < chunks; i++) {
    const at = batch.offsets[i]!;
    try {
      const got = codec.decodeInto(data.subarray(offsets[i]!, offsets[i + 1]!), batch.timestamps.subarray(at), batch.values.subarray(at));
      batch.offsets[i + 1] = at + got;
    } catch (err) {
      throw new Error(`chunk ${i}: ${(err as Error).message}`, { cause: err });
    }
  }
  return buffer;
}
