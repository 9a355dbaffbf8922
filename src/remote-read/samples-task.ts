/**
 * Remote-read SAMPLES answers made in the worker pool: the plan's buffers
 * are moved to a worker, which decodes the chunks, encodes the
 * ReadResponse (samples-encoding.ts; histogram chunks through
 * src/chunkenc/chunk-samples.ts) and snappy-compresses it.
 */
import { compressSync } from 'snappy';
import { decodeHistogramChunk } from '../chunkenc/chunk-samples.js';
import { threadCodec } from '../chunkenc/index.js';
import type { PoolTask, TaskRunner } from '../pool/task.js';
import { moved } from '../pool/transfer.js';
import { encodeReadResponse, planBuffers, type SamplesPlan } from './samples-encoding.js';

interface ReadSamplesMessage {
  op: 'readSamples';
  plan: SamplesPlan;
}

/** Worker half: the snappy ReadResponse of the plan, on a buffer of its own (moved back). */
export const readSamplesTask: PoolTask<ReadSamplesMessage> = {
  op: 'readSamples',
  run: ({ plan }) => moved(readSamples(plan)),
};

/**
 * The snappy-compressed prometheus.ReadResponse of a remote-read SAMPLES
 * answer: chunks decoded, message encoded and compressed in a worker. The
 * plan's buffers are moved to the worker (the plan is empty afterwards);
 * the answer belongs to the caller.
 */
export async function readSamplesInPool(pool: TaskRunner, plan: SamplesPlan): Promise<Uint8Array> {
  const message: ReadSamplesMessage = { op: 'readSamples', plan };
  return new Uint8Array(await pool.run<ArrayBuffer>(message, planBuffers(plan)));
}

function readSamples(plan: SamplesPlan): ArrayBuffer {
  const compressed = compressSync(encodeReadResponse(plan, threadCodec(), decodeHistogramChunk), { copyOutputData: true });
  // The library's Buffer may be external memory: copy it onto a plain ArrayBuffer that can move.
  const out = new Uint8Array(compressed.length);
  out.set(compressed);
  return out.buffer;
}
