import { ENTRY } from '../wasm/layout.js';
import { APPEND_BATCH_MAGIC, viewAppendBatch } from '../record/append-batch.js';
import { viewHistogramBatch } from '../record/histogram-batch.js';
import { SamplesRejectedError, type RejectReason } from '../errors/errors.js';
import type { HeadAppendStats, RejectKey } from '../head/head.js';

const WHAT: Record<RejectKey, [RejectReason, string]> = {
  outOfOrder: ['out-of-order', 'out of order sample'],
  conflict: ['conflict', 'duplicate sample for timestamp'],
  tooOld: ['too-old', 'too old sample'],
  // Thanos Receive's words for it: storage.ErrOutOfBounds.
  tooFarInFuture: ['too-far-in-future', 'out of bounds: sample too far in the future'],
};

/**
 * The typed error for an append's rejected samples, or undefined when none
 * was rejected. The message counts each reason and names the first series
 * and timestamp of each, e.g. `2 samples rejected: out of order sample (2,
 * first {__name__="up", job="a"} at 1500)`; for a histogram batch
 * (src/histograms) `2 histogram samples rejected: ...`.
 */
export function rejectionError(result: HeadAppendStats, batch: ArrayBuffer, labelsOf?: SeriesLabels): SamplesRejectedError | undefined {
  const total = result.outOfOrder + result.conflict + result.tooOld + result.tooFarInFuture;
  if (total === 0) return undefined;
  const what = isAppendBatch(batch) ? 'sample' : 'histogram sample';
  const parts: string[] = [];
  for (const key of ['outOfOrder', 'conflict', 'tooOld', 'tooFarInFuture'] as const) {
    const n = result[key];
    const first = result.first[key];
    if (n === 0 || first === undefined) continue;
    parts.push(`${WHAT[key][1]} (${n}, first ${describeEntry(batch, first.entry, labelsOf)} at ${first.t})`);
  }
  return new SamplesRejectedError(`${total} ${what}${total === 1 ? '' : 's'} rejected: ${parts.join('; ')}`, {
    'out-of-order': result.outOfOrder,
    conflict: result.conflict,
    'too-old': result.tooOld,
    'too-far-in-future': result.tooFarInFuture,
  });
}

/**
 * One error for the rejections of a write's float and histogram samples
 * (either may be undefined): counts added up, messages joined.
 */
export function joinRejections(a: SamplesRejectedError | undefined, b: SamplesRejectedError | undefined): SamplesRejectedError | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const counts = { ...a.counts };
  for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += b.counts[k];
  return new SamplesRejectedError(`${a.message}; ${b.message}`, counts);
}

function isAppendBatch(batch: ArrayBuffer): boolean {
  return batch.byteLength >= 4 && new Uint32Array(batch, 0, 1)[0] === APPEND_BATCH_MAGIC;
}

/** The labels of a head series, [name, value, ...], if it exists. */
export type SeriesLabels = (id: number) => readonly string[] | undefined;

/**
 * The labels of batch entry `i` (an append or a histogram batch) as
 * {name="value", ...}; for entries given by series id, the series' labels
 * from `labelsOf`, or the id when it cannot tell.
 */
function describeEntry(batch: ArrayBuffer, i: number, labelsOf: SeriesLabels | undefined): string {
  const v = isAppendBatch(batch) ? viewAppendBatch(batch) : viewHistogramBatch(batch);
  const e = new DataView(batch, v.entriesAt + i * ENTRY.size, ENTRY.size);
  const ref = e.getUint32(ENTRY.ref, true);
  if (ref !== 0) {
    const labels = labelsOf?.(ref - 1);
    return labels === undefined ? `series ${ref - 1}` : formatLabels(labels);
  }
  const bytes = new Uint8Array(batch, v.labelsAt + e.getUint32(ENTRY.labelsOff, true), e.getUint32(ENTRY.labelsLen, true));
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  let start = 0;
  for (let k = 0; k < b.length; k++) {
    if (b[k] !== 0xff) continue;
    parts.push(b.toString('utf8', start, k));
    start = k + 1;
  }
  return formatLabels(parts);
}

function formatLabels(parts: readonly string[]): string {
  const out: string[] = [];
  for (let k = 0; k + 1 < parts.length; k += 2) out.push(`${parts[k]}=${JSON.stringify(parts[k + 1])}`);
  return `{${out.join(', ')}}`;
}
