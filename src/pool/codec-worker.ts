// A piscina worker: loads the WebAssembly module once, then runs batch
// encode and decode tasks and remote-write parsing. Each result's buffer
// is moved (not copied) back to the caller's thread.
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { compressSync, uncompressSync } from 'snappy';
import { encodeReadResponse } from '../http/prometheus/read-samples.js';
import { WasmXorCodec, chunkSampleCount } from '../codec/index.js';
import type { HeadWasm } from '../head/head-wasm.js';
import { MalformedRequestError } from '../store/write/errors.js';
import { parseWriteRequest } from '../store/write/parse-write.js';
import {
  allocSampleBatch, checkOffsets, packChunkBatch,
  type ChunkBatch, type CodecTask, type ParseWriteAnswer, type ParseWriteTask, type ReadSamplesTask, type SampleBatch,
} from './batches.js';
import { checkSnappyBlock, SnappyBodyError, snappyFailure } from './snappy-block.js';

const codec = new WasmXorCodec();
// The same instance of build/strata.wasm serves the head's exports
// (hashEntries for the batch's label hashes).
const headWasm = codec.wasm as HeadWasm;

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

/** A snappy block's bytes, or the answer refusing it. */
function unsnappy(bytes: Uint8Array, maxDecodedBytes: number): Uint8Array | ParseWriteAnswer {
  try {
    checkSnappyBlock(bytes, maxDecodedBytes);
    // copyOutputData: the output lives on the V8 heap, where the worker's
    // garbage collector sees it. As an external buffer the collector does
    // not count it, and a worker that allocates little else never runs: the
    // decoded bodies piled up (about 120 bytes a sample written).
    return uncompressSync(bytes, { copyOutputData: true }) as Buffer;
  } catch (err) {
    const e = err instanceof SnappyBodyError ? err : snappyFailure(err);
    return { ok: false, snappy: e.kind, message: e.message };
  }
}

function parseWrite({ bytes: body, opts, snappy }: ParseWriteTask): unknown {
  const bytes = snappy === undefined ? body : unsnappy(body, snappy.maxDecodedBytes);
  if (!(bytes instanceof Uint8Array)) return bytes;
  let answer: ParseWriteAnswer;
  try {
    answer = { ok: true, parsed: parseWriteRequest(bytes, opts, headWasm) };
  } catch (err) {
    if (!(err instanceof MalformedRequestError)) throw err;
    return { ok: false, offset: err.offset, detail: err.detail } satisfies ParseWriteAnswer;
  }
  // Answer the object, moving its batch: piscina transfers what a movable
  // value lists under transferableSymbol and posts what it has under valueSymbol.
  return move({ [transferableSymbol]: answer.parsed.batch, [valueSymbol]: answer });
}

/** The snappy ReadResponse of a remote-read SAMPLES answer, on a buffer of its own (moved back). */
function readSamples({ plan }: ReadSamplesTask): ArrayBuffer {
  const compressed = compressSync(encodeReadResponse(plan, codec), { copyOutputData: true });
  // The library's Buffer may be external memory: copy it onto a plain ArrayBuffer that can move.
  const out = new Uint8Array(compressed.length);
  out.set(compressed);
  return out.buffer;
}

export default function run(task: CodecTask): unknown {
  switch (task.op) {
    case 'encode':
      return move(encodeBatch(task.batch));
    case 'decode':
      return move(decodeBatch(task.batch));
    case 'parseWrite':
      return parseWrite(task);
    case 'readSamples':
      return move(readSamples(task));
  }
}
