/**
 * Remote-write requests parsed in the worker pool: the event loop keeps the
 * raw bytes and moves them to a worker, which decompresses (HTTP bodies),
 * parses and validates them into an append batch and moves the batch back.
 */
import { uncompressSync } from 'snappy';
import { threadCodec } from '../chunkenc/index.js';
import type { PoolTask, TaskRunner } from '../pool/task.js';
import { collectNow, collectYoungAfter } from '../pool/collect.js';
import { batchBuffers, bodyBuffers, bodyBytes, histogramBatchBuffers, SPARE_MAX_BYTES } from '../pool/spare-buffers.js';
import { movedWith, transferable } from '../pool/transfer.js';
import { MalformedRequestError, malformedRequest } from '../errors/errors.js';
import { parseWriteRequest, type ParsedWrite, type ParseWriteOptions } from './parse/parse-write.js';
import { checkSnappyBlock, SnappyBodyError, snappyFailure } from '../encoding/snappy-block.js';
import { decodeSnappyFramed } from '../encoding/snappy-framed.js';
import { OtlpTooLargeError, plainOtlpBody, type OtlpBody } from '../otlp/otlp-body.js';
import { parsePlainOtlp } from './parse/otlp-batch.js';

/** A remote-write request to parse (parse-write.ts). */
interface ParseWriteMessage {
  op: 'parseWrite';
  bytes: Uint8Array;
  opts: ParseWriteOptions;
  /**
   * The bytes are a snappy block (remote write over HTTP), or with
   * `framed` a snappy-framed stream (gRPC's "snappy"): decompressed first,
   * up to this many bytes.
   */
  snappy?: { maxDecodedBytes: number; framed?: true };
  /** The bytes are an OTLP metrics body (src/otlp), parsed by parse/otlp-batch.ts. */
  otlp?: OtlpBody;
  /** The series cache's table (series-table.ts), shared: known series are sent by ref. */
  cache?: SharedArrayBuffer;
  /** A buffer to write the append batch into when it is large enough (moved; see spare-buffers.ts). */
  spare?: ArrayBuffer;
  /** As `spare`, for the histogram batch. */
  histogramSpare?: ArrayBuffer;
}

/**
 * What a parseWrite task answers. Errors cross threads as structured clones,
 * which keep only name, message and stack; a malformed request therefore
 * comes back as data and is thrown again, typed, on the caller's thread.
 */
type ParseWriteAnswer = (
  | { ok: true; parsed: ParsedWrite }
  | { ok: false; offset: number; detail: string }
  /** The snappy (or OTLP's gzip) body did not decompress, or would decompress to too much (snappy-block.ts). */
  | { ok: false; snappy: 'malformed-request' | 'resource-exhausted'; message: string }
) & {
  /** The request's buffer, moved back for reuse (when the spares would keep it). */
  body?: ArrayBuffer;
  /** The spare batch buffer a refused request did not use, moved back. */
  spare?: ArrayBuffer;
  /** The spare histogram batch buffer the request did not use (refused, or no histogram batch that fits), moved back. */
  histogramSpare?: ArrayBuffer;
};

/** Worker half: parses the request; the answer's batches are moved back, not copied. */
export const parseWriteTask: PoolTask<ParseWriteMessage> = {
  op: 'parseWrite',
  run: parseWrite,
};

/**
 * Parses a remote-write request in a worker (see parseWriteRequest in
 * parse-write.ts for what it checks and answers).
 *
 * Ownership: when `bytes` covers its whole ArrayBuffer, that buffer is
 * moved to the worker and `bytes` is empty (detached) afterwards;
 * otherwise exactly its bytes are copied (one copy, then moved) and
 * `bytes`, with the buffer it views, is left as it was. The answer's
 * batches (floats, histograms, exemplars) were moved back, not copied,
 * and belong to the caller.
 *
 * @throws MalformedRequestError when the bytes are not a valid message.
 * @throws SnappyBodyError when `body.snappy` is given and the bytes are not
 *   a snappy block, or announce more than `maxDecodedBytes`.
 */
export async function parseWriteInPool(
  pool: TaskRunner,
  bytes: Uint8Array,
  opts: ParseWriteOptions,
  body: { snappy?: { maxDecodedBytes: number; framed?: true }; otlp?: OtlpBody; cache?: SharedArrayBuffer } = {},
): Promise<ParsedWrite> {
  // Cloning a view clones its whole buffer (a Node Buffer may be a slice
  // of a much larger one): move the buffer only when the view is all of it
  // or the buffer is one of ours (spare-buffers.ts: no other view shares
  // it), else copy just the bytes into a buffer of ours and move that.
  let owned = bytes;
  if (transferable(bytes).length !== 1 && !(bytes.byteOffset === 0 && bodyBuffers.exclusive(bytes.buffer))) {
    owned = new Uint8Array(bodyBuffers.takeOrAllocate(bytes.length), 0, bytes.length);
    owned.set(bytes);
  }
  const message: ParseWriteMessage = { op: 'parseWrite', bytes: owned, opts };
  const moving = [owned.buffer as ArrayBuffer];
  if (body.snappy !== undefined) message.snappy = body.snappy;
  if (body.otlp !== undefined) message.otlp = body.otlp;
  if (body.cache !== undefined) message.cache = body.cache;
  const spare = batchBuffers.take(0);
  if (spare !== undefined) {
    message.spare = spare;
    moving.push(spare);
  }
  const histogramSpare = histogramBatchBuffers.take(0);
  if (histogramSpare !== undefined) {
    message.histogramSpare = histogramSpare;
    moving.push(histogramSpare);
  }
  const answer = await pool.run<ParseWriteAnswer>(message, moving);
  // Given back whatever the outcome: a refused request's buffers are reused as an accepted one's.
  if (answer.body !== undefined) bodyBuffers.give(answer.body);
  if (answer.spare !== undefined) batchBuffers.give(answer.spare);
  if (answer.histogramSpare !== undefined) histogramBatchBuffers.give(answer.histogramSpare);
  if (!answer.ok) throw 'snappy' in answer ? new SnappyBodyError(answer.snappy, answer.message) : malformedRequest(answer.offset, answer.detail);
  return answer.parsed;
}

/**
 * Gives an append batch of a ParsedWrite back once nothing reads it any
 * more: the pool writes a later batch into it.
 */
export function recycleBatch(batch: ArrayBuffer): void {
  batchBuffers.give(batch);
}

/** As recycleBatch for the histogram batch of a ParsedWrite. */
export function recycleHistogramBatch(batch: ArrayBuffer): void {
  histogramBatchBuffers.give(batch);
}

/** A snappy-framed stream's bytes, or the answer refusing it. */
function unframe(bytes: Uint8Array, maxDecodedBytes: number): Uint8Array | ParseWriteAnswer {
  try {
    return decodeSnappyFramed(bytes, maxDecodedBytes, bodyBytes);
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, snappy: 'resource-exhausted', message: `${err.message} (the most a message may hold)` };
    return { ok: false, snappy: 'malformed-request', message: (err as Error).message };
  }
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

function parseWrite(message: ParseWriteMessage): unknown {
  const body = message.bytes.buffer;
  const large = { found: body.byteLength > SPARE_MAX_BYTES, decoded: 0 };
  const answer = decodeAndParse(message, large);
  collectYoungAfter(large.decoded);
  if (large.found) {
    // A body the caller's spares would not keep stays here, held by the
    // message until the next task: detached into a clone nothing holds, it
    // goes with the decoded message in the collection (collect.ts).
    if (body instanceof ArrayBuffer && body.byteLength > SPARE_MAX_BYTES) structuredClone(body, { transfer: [body] });
    collectNow();
  }
  return answer;
}

/**
 * `large.found`: the body or what it decoded to is larger than the spares
 * keep; `large.decoded`: bytes decoded into a buffer of this thread, left
 * as garbage here.
 */
function decodeAndParse({ bytes: body, opts, snappy, otlp, cache, spare, histogramSpare }: ParseWriteMessage, large: { found: boolean; decoded: number }): unknown {
  let bytes: Uint8Array | ParseWriteAnswer = body;
  if (otlp === undefined) {
    bytes = snappy === undefined ? body : snappy.framed ? unframe(body, snappy.maxDecodedBytes) : unsnappy(body, snappy.maxDecodedBytes);
    if (!(bytes instanceof Uint8Array)) return refused(bytes, body, spare, histogramSpare);
  }
  let answer: ParseWriteAnswer & { ok: true };
  try {
    // Large as decoded: a small gzip body may inflate past the spares too.
    const plain = otlp === undefined ? bytes : plainOtlpBody(bytes, otlp);
    if (plain.byteLength > SPARE_MAX_BYTES) large.found = true;
    if (plain !== body) large.decoded = plain.byteLength;
    // The thread's codec instance of build/strata.wasm also serves the
    // head's exports (hashEntries for the batch's label hashes).
    const wasm = threadCodec().wasm;
    const parsed = otlp === undefined
      ? parseWriteRequest(plain, opts, wasm, cache, spare, histogramSpare)
      : parsePlainOtlp(plain, otlp, opts, wasm, cache, spare, histogramSpare);
    answer = { ok: true, parsed };
  } catch (err) {
    if (err instanceof OtlpTooLargeError) return refused({ ok: false, snappy: 'resource-exhausted', message: err.message }, body, spare, histogramSpare);
    if (!(err instanceof MalformedRequestError)) throw err;
    return refused({ ok: false, offset: err.offset, detail: err.detail }, body, spare, histogramSpare);
  }
  // Every batch is moved back, not copied: floats, histograms, exemplars, keys.
  const { batch, histogramBatch, exemplarBatch, keys } = answer.parsed;
  const moving = [batch];
  if (histogramBatch !== undefined) moving.push(histogramBatch);
  if (exemplarBatch !== undefined) moving.push(exemplarBatch);
  if (keys !== undefined) moving.push(keys);
  // A histogram spare the batch did not go into goes back (the float spare, if unused, stays here as garbage).
  if (histogramSpare !== undefined && histogramSpare !== histogramBatch && histogramSpare.byteLength > 0) {
    answer.histogramSpare = histogramSpare;
    moving.push(histogramSpare);
  }
  // The body is read: its buffer goes back for the next one.
  const back = returnable(body);
  if (back !== undefined && !moving.includes(back)) {
    answer.body = back;
    moving.push(back);
  }
  return movedWith(answer, moving.length === 1 ? batch : moving);
}

/** The buffer of `body` when the caller's spares would keep it (else it stays here, garbage). */
function returnable(body: Uint8Array): ArrayBuffer | undefined {
  const b = body.buffer;
  return b instanceof ArrayBuffer && b.byteLength > 0 && b.byteLength <= SPARE_MAX_BYTES ? b : undefined;
}

/** A refusal, with the body's buffer and the unused spare batch buffers moved back. */
function refused(answer: ParseWriteAnswer, body: Uint8Array, spare: ArrayBuffer | undefined, histogramSpare: ArrayBuffer | undefined): unknown {
  const moving: ArrayBuffer[] = [];
  const back = returnable(body);
  if (back !== undefined) {
    answer.body = back;
    moving.push(back);
  }
  if (spare !== undefined && spare.byteLength > 0) {
    answer.spare = spare;
    moving.push(spare);
  }
  if (histogramSpare !== undefined && histogramSpare.byteLength > 0) {
    answer.histogramSpare = histogramSpare;
    moving.push(histogramSpare);
  }
  return moving.length === 0 ? answer : movedWith(answer, moving);
}
