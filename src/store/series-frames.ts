import { ENCODING_XOR, thanosChunkEncoding } from '../chunkenc/encoding.js';
import type { StoredChunk } from '../query/types.js';
import { WIRE_LEN, WIRE_VARINT, lenFieldSize, writeTag } from '../encoding/proto-writer.js';
import { putUvarint, putUvarint64, uvarint64Size, uvarintSize } from '../encoding/varint.js';

/**
 * Thanos splits a long series into frames of about this size; one frame
 * always takes at least one chunk.
 */
export const FRAME_TARGET_BYTES = 1 << 20;

/** thanos.SeriesResponse and the messages inside it, field numbers from WIRE.md. */
const RESPONSE_SERIES = 1;
const RESPONSE_WARNING = 2;
const SERIES_LABELS = 1;
const SERIES_CHUNKS = 2;
const LABEL_NAME = 1;
const LABEL_VALUE = 2;
const AGGR_MIN_TIME = 1;
const AGGR_MAX_TIME = 2;
const AGGR_RAW = 3;
const CHUNK_TYPE = 1; // thanos.Chunk.Encoding (thanosChunkEncoding); XOR, 0, is the default and not written
const CHUNK_DATA = 2;

/** thanos.Chunk's type for a stored chunk; one without an encoding is XOR. */
function chunkType(c: StoredChunk): number {
  return thanosChunkEncoding(c.encoding ?? ENCODING_XOR);
}

/** The raw Chunk message's size. */
function rawChunkSize(c: StoredChunk): number {
  const type = chunkType(c);
  return lenFieldSize(c.data.length) + (type === 0 ? 0 : 1 + uvarintSize(type));
}

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The encoded `labels` fields of a Series message. */
export function encodeLabels(labels: readonly string[]): Buffer {
  const end = writeLabels(labels);
  return Buffer.from(scratch.subarray(0, end));
}

let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * The label set whose fields `scratch` holds (written by writeLabels' fast
 * path; empty when nothing there can be reused), and where each of its
 * Label fields ends.
 */
let previous: readonly string[] = [];
let previousEnds = new Int32Array(32);

/**
 * Writes the `labels` fields into `scratch` (each string encoded once: a
 * Label message of under 128 bytes, the usual case, gets its 1-byte length
 * after the fact) and returns their length. Series go out sorted, so
 * neighbours share leading labels (the metric name, often more): the
 * fields of the labels shared with the previous set are in `scratch`
 * already and are not written again.
 */
function writeLabels(labels: readonly string[]): number {
  const pairs = labels.length >> 1;
  if (previousEnds.length < pairs) previousEnds = new Int32Array(pairs * 2);
  const shared = Math.min(pairs, previous.length >> 1);
  let k = 0;
  while (k < shared && labels[2 * k] === previous[2 * k] && labels[2 * k + 1] === previous[2 * k + 1]) k++;
  previous = labels;
  let at = k === 0 ? 0 : previousEnds[k - 1]!;
  for (let i = 2 * k; i < labels.length; i += 2) {
    const name = labels[i]!;
    const value = labels[i + 1]!;
    const most = 3 * (name.length + value.length) + 16;
    if (at + most > scratch.length) {
      const next = Buffer.allocUnsafe(Math.max(scratch.length * 2, at + most));
      scratch.copy(next, 0, 0, at);
      scratch = next;
    }
    const start = at;
    at += 2; // tag and a 1-byte length of the Label message
    at = writeTag(scratch, at, LABEL_NAME, WIRE_LEN);
    const nameAt = at + 1;
    const nameLen = writeString(scratch, nameAt, name);
    if (nameLen >= 128) return writeLabelsSlowly(labels);
    scratch[at] = nameLen;
    at = nameAt + nameLen;
    at = writeTag(scratch, at, LABEL_VALUE, WIRE_LEN);
    const valueAt = at + 1;
    const valueLen = writeString(scratch, valueAt, value);
    if (valueLen >= 128) return writeLabelsSlowly(labels);
    scratch[at] = valueLen;
    at = valueAt + valueLen;
    const body = at - start - 2;
    if (body >= 128) return writeLabelsSlowly(labels);
    scratch[start] = (SERIES_LABELS << 3) | WIRE_LEN;
    scratch[start + 1] = body;
    previousEnds[i >> 1] = at;
  }
  return at;
}

/**
 * Writes `s` as UTF-8 and returns its length. Label names and values are
 * short and mostly ASCII: a loop beats a call into the runtime for those.
 */
function writeString(b: Buffer, at: number, s: string): number {
  const n = s.length;
  if (n > 32) return b.write(s, at, 'utf8');
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return b.write(s, at, 'utf8');
    b[at + i] = c;
  }
  return n;
}

/** writeLabels for label sets with long names or values: sizes first. */
function writeLabelsSlowly(labels: readonly string[]): number {
  previous = [];
  let size = 0;
  for (let i = 0; i < labels.length; i += 2) size += lenFieldSize(labelSize(labels[i]!, labels[i + 1]!));
  if (size > scratch.length) scratch = Buffer.allocUnsafe(size * 2);
  const b = scratch;
  let at = 0;
  for (let i = 0; i < labels.length; i += 2) {
    const name = labels[i]!;
    const value = labels[i + 1]!;
    const nameLen = utf8(name);
    const valueLen = utf8(value);
    at = writeTag(b, at, SERIES_LABELS, WIRE_LEN);
    at = putUvarint(b, at, lenFieldSize(nameLen) + lenFieldSize(valueLen));
    at = writeTag(b, at, LABEL_NAME, WIRE_LEN);
    at = putUvarint(b, at, nameLen);
    at += b.write(name, at, 'utf8');
    at = writeTag(b, at, LABEL_VALUE, WIRE_LEN);
    at = putUvarint(b, at, valueLen);
    at += b.write(value, at, 'utf8');
  }
  return at;
}

function labelSize(name: string, value: string): number {
  return lenFieldSize(utf8(name)) + lenFieldSize(utf8(value));
}

/** AggrChunk sizes of the series being encoded, by chunk (a chunk is far below 2 GiB). */
let aggrSizes = new Int32Array(64);

function aggrChunkSize(c: StoredChunk): number {
  const raw = rawChunkSize(c);
  return 1 + uvarint64Size(c.minT) + 1 + uvarint64Size(c.maxT) + lenFieldSize(raw);
}

/**
 * Encodes one series as SeriesResponse frames: all its chunks, in order,
 * split so that a frame holds about FRAME_TARGET_BYTES of chunks. With no
 * chunks (skip_chunks) one frame of labels only. Each frame is one buffer.
 */
export function encodeSeriesFrames(
  labels: readonly string[],
  chunks: readonly StoredChunk[],
  out: (frame: Buffer) => void,
  alloc: (size: number) => Buffer = Buffer.allocUnsafe,
): void {
  const labelBytes = writeLabels(labels);
  // Each chunk's AggrChunk size, once (the frame writes it again).
  if (aggrSizes.length < chunks.length) aggrSizes = new Int32Array(chunks.length * 2);
  for (let i = 0; i < chunks.length; i++) aggrSizes[i] = aggrChunkSize(chunks[i]!);
  let first = 0;
  do {
    let end = first;
    let chunkBytes = 0;
    while (end < chunks.length) {
      const size = lenFieldSize(aggrSizes[end]!);
      if (end > first && chunkBytes + size > FRAME_TARGET_BYTES) break;
      chunkBytes += size;
      end++;
    }
    out(encodeFrame(labelBytes, chunks, first, end, chunkBytes, alloc));
    first = end;
  } while (first < chunks.length);
}

/** One frame: the labels from `scratch` (labelBytes long), chunks [from, to). */
function encodeFrame(
  labelBytes: number, chunks: readonly StoredChunk[], from: number, to: number, chunkBytes: number, alloc: (size: number) => Buffer,
): Buffer {
  const seriesSize = labelBytes + chunkBytes;
  const b = alloc(lenFieldSize(seriesSize));
  let at = writeTag(b, 0, RESPONSE_SERIES, WIRE_LEN);
  at = putUvarint(b, at, seriesSize);
  scratch.copy(b, at, 0, labelBytes);
  at += labelBytes;
  for (let i = from; i < to; i++) {
    const c = chunks[i]!;
    at = writeTag(b, at, SERIES_CHUNKS, WIRE_LEN);
    at = putUvarint(b, at, aggrSizes[i]!);
    at = writeTag(b, at, AGGR_MIN_TIME, WIRE_VARINT);
    at = putUvarint64(b, at, c.minT);
    at = writeTag(b, at, AGGR_MAX_TIME, WIRE_VARINT);
    at = putUvarint64(b, at, c.maxT);
    at = writeTag(b, at, AGGR_RAW, WIRE_LEN);
    at = putUvarint(b, at, rawChunkSize(c));
    const type = chunkType(c);
    if (type !== 0) {
      at = writeTag(b, at, CHUNK_TYPE, WIRE_VARINT);
      at = putUvarint(b, at, type);
    }
    at = writeTag(b, at, CHUNK_DATA, WIRE_LEN);
    at = putUvarint(b, at, c.data.length);
    b.set(c.data, at);
    at += c.data.length;
  }
  return b;
}

/** A SeriesResponse frame carrying a warning. */
export function encodeWarningFrame(warning: string, alloc: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  const len = utf8(warning);
  const b = alloc(lenFieldSize(len));
  let at = writeTag(b, 0, RESPONSE_WARNING, WIRE_LEN);
  at = putUvarint(b, at, len);
  b.write(warning, at, 'utf8');
  return b;
}
