import type { FloatHistogram, Histogram } from '../chunkenc/histogram/types.js';
import { bodyIsFloat, decodeBody } from '../record/histogram-body.js';
import { viewHistogramBatch } from '../record/histogram-batch.js';
import { sameHistogram } from '../chunkenc/histogram/equal.js';
import type { HistogramRecordWriter } from '../record/histogram-record.js';
import { ENTRY } from '../wasm/layout.js';
import type { AppendBounds, EntryRange, Head, HeadAppendStats, RejectKey } from './head.js';
import type { Series } from './series.js';

const TWO_32 = 4294967296;

/** What appendHistograms needs besides the batch. */
export interface HistogramAppendContext {
  head: Head;
  bounds: AppendBounds;
  /** The WAL segment the accepted samples are logged in. */
  walSeg: number;
  /** Called for each series created, with its canonical label bytes (valid during the call), before its samples are appended. */
  onCreate: (s: Series, labelBytes: Uint8Array) => void;
  /** Collects the accepted samples for the WAL's HISTOGRAMS record. */
  record: HistogramRecordWriter;
  /**
   * Hands the chunks cut so far to the chunk files (the engine's
   * storeCuts): called where a series switches from float to histogram
   * samples, so that its older chunks are stored first.
   */
  storeCuts: () => void;
  /** When given, each entry's series is written here as id + 1 (0 where there is no such series and none was created). */
  ids?: Uint32Array;
}

/**
 * Appends a histogram batch (src/record/histogram-batch.ts) to the head,
 * under Prometheus 2.42's rules for native histograms: a sample newer than
 * the series' newest (float or histogram) is appended; older is out of
 * order (2.42 keeps no out-of-order histograms, whatever the window); at
 * the newest's time, the same histogram is a duplicate (accepted, stored
 * once) and anything else a conflict; before `minValidT` too old, after
 * `maxValidT` too far in the future. A series none of whose samples may
 * be taken is not created. Samples are taken series by series, each
 * series' in batch order.
 *
 * Float and histogram samples of one series follow each other in time;
 * where a series switches between them a new chunk starts (a histogram
 * after floats closes the open XOR chunk, and the chunker starts afresh
 * with no histogram chunk before it to compare with, as Prometheus' head
 * does; a float after histograms is the float head's business, see
 * storeCuts in head-chunks.ts).
 *
 * Shape: times are read straight from the batch; the common sample (the
 * open chunk takes it as it is) goes from its body into the chunk without
 * a histogram object (HistogramHead.appendBody); others are decoded into
 * one when appended or compared. Accepted samples are logged by copying
 * their bodies. With `range`, only those entries (the others are appended
 * by calls of their own; rejections are named by their index in the batch).
 */
export function appendHistograms(ctx: HistogramAppendContext, batch: ArrayBuffer, range?: EntryRange): HeadAppendStats {
  const { head, bounds } = ctx;
  const v = viewHistogramBatch(batch);
  const words = new Uint32Array(batch, v.entriesAt, (v.entries * ENTRY.size) / 4);
  const ts = new Int32Array(batch, v.timestampsAt, 2 * v.samples);
  const offsets = new Uint32Array(batch, v.offsetsAt, v.samples + 1);
  const bodies = new Uint8Array(batch, v.bodiesAt, v.bodyBytes);
  const labels = new Uint8Array(batch, v.labelsAt, v.labelBytes);
  const stats = newStats();
  const record = ctx.record;
  const to = range === undefined ? v.entries : Math.min(range.to, v.entries);
  const ids = ctx.ids;
  for (let i = range?.from ?? 0; i < to; i++) {
    const e = (i * ENTRY.size) / 4;
    const start = words[e + ENTRY.start / 4]!;
    const count = words[e + ENTRY.count / 4]!;
    const off = words[e + ENTRY.labelsOff / 4]!;
    const len = words[e + ENTRY.labelsLen / 4]!;
    const ref = words[e + ENTRY.ref / 4]!;
    let s: Series | undefined;
    if (ref !== 0) {
      s = head.get(ref - 1);
    } else {
      // The view of the labels and the BigInt hash are made only for a series created.
      const lo = words[e + ENTRY.hash / 4]!;
      const hi = words[e + ENTRY.hash / 4 + 1]!;
      s = head.lookupWords(lo, hi, labels, off, len);
      if (s === undefined && anyTaken(ts, start, count, bounds)) {
        const labelBytes = labels.subarray(off, off + len);
        s = head.createSeries(labelBytes, (BigInt(hi) << 32n) | BigInt(lo));
        stats.created++;
        ctx.onCreate(s, labelBytes);
      }
    }
    if (ids !== undefined) ids[i] = s === undefined ? 0 : s.id + 1;
    let accepted = 0;
    for (let k = start; k < start + count; k++) {
      const t = ts[2 * k + 1]! * TWO_32 + (ts[2 * k]! >>> 0);
      if (t > bounds.maxValidT) {
        reject(stats, 'tooFarInFuture', i, t);
        continue;
      }
      if (t < bounds.minValidT) {
        reject(stats, 'tooOld', i, t);
        continue;
      }
      if (s === undefined) continue; // a series given by id that left the head
      const at = offsets[k]!;
      const end = offsets[k + 1]!;
      const newest = head.newest(s);
      if (newest !== undefined && t <= newest) {
        if (t < newest) {
          reject(stats, 'outOfOrder', i, t);
        } else {
          const last = head.histograms.lastAt(s.id, t);
          const float = bodyIsFloat(bodies, at);
          if (last !== undefined && sameHistogram(decodeBody(bodies, at, end), float, last.h, last.float)) stats.ignored++;
          else reject(stats, 'conflict', i, t);
        }
        continue;
      }
      appendOne(ctx, s, t, bodies, at, end, ctx.walSeg, newest);
      if (accepted++ === 0) record.group(s.id, t);
      record.sample(t, bodies, at, end);
      if (t < stats.minT) stats.minT = t;
      if (t > stats.maxT) stats.maxT = t;
    }
    stats.appended += accepted;
  }
  return stats;
}

/**
 * Replays one sample of a WAL HISTOGRAMS record: appended unless it lies
 * at or before the series' newest (the chunk files hold it) or before
 * `minValidT` (blocks hold it); nothing is rejected. `storeCuts` as for
 * appendHistograms.
 *
 * @throws MalformedBodyError when the body does not decode.
 */
export function replayHistogram(
  head: Head, s: Series, t: number, body: Uint8Array, at: number, end: number, walSeg: number, minValidT: number, storeCuts: () => void,
): void {
  if (t < minValidT) return;
  const newest = head.newest(s);
  if (newest !== undefined && t <= newest) return;
  appendOne({ head, storeCuts }, s, t, body, at, end, walSeg, newest);
}

/** Appends a sample that passed the rules (newer than the series' newest, `newest`). */
function appendOne(
  ctx: { head: Head; storeCuts: () => void }, s: Series, t: number, bodies: Uint8Array, at: number, end: number, walSeg: number,
  newest: number | undefined,
): void {
  const { head } = ctx;
  const hist = head.histograms;
  if (!hist.appendBody(s.id, t, bodies, at, end, walSeg, newest)) {
    // Floats came after the series' last histogram (or it held only floats):
    // the histogram chunk before them, if still open, and the open XOR chunk
    // are cut, in time order, and the new chunk is not compared with any
    // histogram chunk before it (Prometheus: the appender before is an XOR one).
    // Decoded before anything is cut: a body that does not decode changes nothing.
    const h = decodeBody(bodies, at, end);
    const cutH = hist.cutOpen(s.id);
    const cutF = head.cutFloatOpen(s);
    if (cutH || cutF) ctx.storeCuts();
    hist.forgetPrevious(s.id);
    hist.append(s.id, t, h, bodyIsFloat(bodies, at), walSeg);
  }
  head.setNewestHistogram(s, t);
}

/** Whether some of an entry's samples lie within the bounds (its series may then be created). */
function anyTaken(ts: Int32Array, start: number, count: number, b: AppendBounds): boolean {
  for (let k = start; k < start + count; k++) {
    const t = ts[2 * k + 1]! * TWO_32 + (ts[2 * k]! >>> 0);
    if (t >= b.minValidT && t <= b.maxValidT) return true;
  }
  return false;
}

function newStats(): HeadAppendStats {
  return {
    appended: 0, oooAppended: 0, ignored: 0, outOfOrder: 0, conflict: 0, tooOld: 0, tooFarInFuture: 0, created: 0,
    minT: Infinity, maxT: -Infinity, first: {},
  };
}

function reject(stats: HeadAppendStats, key: RejectKey, entry: number, t: number): void {
  if (stats[key]++ === 0) stats.first[key] = { entry, t };
}
