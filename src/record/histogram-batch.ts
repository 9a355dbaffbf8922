/**
 * The histogram batch: the native histogram samples of many series in one
 * ArrayBuffer, moved (not copied) from the parsing worker to the thread
 * that owns the head, as the append batch (src/record/sample-batch.ts) moves
 * float samples. No object per sample: the head reads the timestamps to
 * apply the sample rules and decodes only the bodies it appends.
 *
 * Layout (little-endian; every part starts 8-byte aligned):
 *
 *   header (32 bytes)  magic u32 "STH1", entries u32, samples u32,
 *                      label bytes u32, body bytes u32, 12 bytes zero
 *   entries            entries x 32 bytes, the append batch's ENTRY layout:
 *                      label hash u64, ref u32 (0: by labels), label offset
 *                      u32, label length u32, first sample u32, sample
 *                      count u32, zero u32
 *   timestamps         samples x i64 (ms)
 *   body offsets       (samples + 1) x u32: sample i's body is
 *                      bodies[offsets[i], offsets[i + 1]); padded to 8 bytes
 *   bodies             body bytes (src/record/histogram-body.ts), back to back
 *   labels             label bytes: each series' canonical form, name 0xFF
 *                      value 0xFF ..., tenant label merged in
 *
 * A series' samples are in wire order; the head takes them in that order.
 */
import { hashEntries } from './sample-batch.js';
import { ENTRY } from '../wasm/head.js';
import type { HeadWasm } from '../wasm/head.js';

/** "STH1": the first word of every histogram batch. */
export const HISTOGRAM_BATCH_MAGIC = 0x53544831;
/** Bytes of the header, before the entries. */
export const HISTOGRAM_BATCH_HEADER = 32;

const align8 = (n: number): number => (n + 7) & ~7;

/** Where the parts of a histogram batch lie (byte offsets into its buffer). */
export interface HistogramBatchView {
  entries: number;
  samples: number;
  labelBytes: number;
  bodyBytes: number;
  entriesAt: number;
  timestampsAt: number;
  offsetsAt: number;
  bodiesAt: number;
  labelsAt: number;
}

/** The byte size of a batch with these counts, and where each part starts. */
export function histogramBatchLayout(entries: number, samples: number, bodyBytes: number, labelBytes: number): HistogramBatchView & { size: number } {
  const entriesAt = HISTOGRAM_BATCH_HEADER;
  const timestampsAt = entriesAt + entries * ENTRY.size;
  const offsetsAt = timestampsAt + samples * 8;
  const bodiesAt = offsetsAt + align8((samples + 1) * 4);
  const labelsAt = bodiesAt + align8(bodyBytes);
  return { entries, samples, labelBytes, bodyBytes, entriesAt, timestampsAt, offsetsAt, bodiesAt, labelsAt, size: labelsAt + labelBytes };
}

/** Reads a histogram batch's header; throws a RangeError if it is not one. */
export function viewHistogramBatch(buffer: ArrayBuffer): HistogramBatchView {
  if (buffer.byteLength < HISTOGRAM_BATCH_HEADER) throw new RangeError('histogram batch: too short');
  const [magic, entries, samples, labelBytes, bodyBytes] = new Uint32Array(buffer, 0, 5) as unknown as number[];
  if (magic !== HISTOGRAM_BATCH_MAGIC) throw new RangeError('histogram batch: bad magic');
  const v = histogramBatchLayout(entries!, samples!, bodyBytes!, labelBytes!);
  if (v.size !== buffer.byteLength) throw new RangeError('histogram batch: sizes do not add up');
  return v;
}

/** Fills every entry's label hash (one WebAssembly call for the batch). */
export function hashHistogramBatch(wasm: HeadWasm, batch: ArrayBuffer): void {
  const v = viewHistogramBatch(batch);
  hashEntries(wasm, batch, v.entriesAt, v.entries, v.labelsAt, v.labelBytes);
}
