// A piscina worker: loads the WebAssembly codec once, then runs batch
// encode and decode tasks. Each result is one packed ArrayBuffer, moved
// (not copied) back to the caller's thread.
import { move } from 'piscina';
import { WasmXorCodec, chunkSampleCount } from '../codec/index.js';
import {
  allocSampleBatch, checkOffsets, packChunkBatch,
  type ChunkBatch, type CodecTask, type SampleBatch,
} from './batches.js';

const codec = new WasmXorCodec();

function encodeBatch({ timestamps, values, offsets }: SampleBatch): ArrayBuffer {
  checkOffsets(offsets, timestamps.length, 'encode');
  if (values.length !== timestamps.length) {
    throw new RangeError(`encode: ${timestamps.length} timestamps but ${values.length} values`);
  }
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

export default function run(task: CodecTask): unknown {
  const buffer = task.op === 'encode' ? encodeBatch(task.batch) : decodeBatch(task.batch);
  return move(buffer);
}
