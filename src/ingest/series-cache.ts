/**
 * The series cache, the engine thread's half: remote-write series the head
 * holds, by a 96-bit key of their raw label bytes (series-keys.ts), and
 * OTLP points' series by the key of what makes their labels
 * (parse/otlp-batch.ts), in a table the pool's workers read (series-table.ts). A worker that finds a
 * TimeSeries' key sends its samples under the series' ref: its labels are
 * neither checked, copied, moved nor compared again. A series is learned
 * once the head has appended it under its labels (which were checked then).
 *
 * Keys: two xxh64 of the raw label bytes, seeded by the table's random
 * seeds mixed with the tenant label; the table keeps 96 of their 128 bits
 * (series-table.ts). Two label sets share a key with a probability of
 * about n^2 / 2^97 for n series (below 10^-17 at a million series); the
 * seeds are secret and change with every table, so a writer
 * cannot aim at another series' key.
 *
 * A table that fills up grows with the same seeds and keys (nothing is
 * learned again). Refs must name live series. When the head drops series (retention, WAL
 * truncation) the table is replaced by an empty one; writes parsed before
 * that may still carry refs of dropped series, so the dropped series'
 * label bytes are kept (the graveyard) until every such write is done, and
 * resolve() gives those entries their labels back: the series is created
 * again, as it would have been without the cache.
 */
import { APPEND_BATCH_MAGIC, viewAppendBatch } from '../record/append-batch.js';
import { viewHistogramBatch } from '../record/histogram-batch.js';
import { ENTRY } from '../wasm/layout.js';
import type { Head } from '../head/head.js';
import { collectWhenQuiet } from '../pool/collect.js';
import { KEY_RECORD_WORDS } from './parse/batch-parse.js';
import { grownSeriesTable, insertRef, newSeriesTable, tableBytes } from './series-table.js';

const MIN_SLOTS = 1 << 16;
/** The most slots a table grows to (67 MB): beyond about 3 million series, new series are not learned. */
const MAX_SLOTS = 1 << 22;
const LOAD = 0.75;

/** One write's use of the cache, from dispatch to append. */
export interface CacheTicket {
  /** The table the write's worker reads. */
  readonly table: SharedArrayBuffer;
  readonly seq: number;
  /** The seeds' generation (replace() starts a new one; grow() keeps it). */
  readonly seeds: number;
}

export class SeriesCache {
  private table: SharedArrayBuffer;
  private words: Int32Array;
  private slots: number;
  private count = 0;
  private seq = 0;
  private seeds = 0;
  private inflight = 0;
  /** The last write dispatched before the last drop. */
  private dropSeq = 0;
  /** Writes in flight dispatched at or before dropSeq. */
  private pendingOld = 0;
  private readonly graveyard = new Map<number, Uint8Array>();
  /** Series written by ref (found), and keyed series written by labels (not found), since open. */
  hits = 0;
  misses = 0;

  constructor(slots = MIN_SLOTS) {
    this.slots = slots;
    this.table = newSeriesTable(slots);
    this.words = new Int32Array(this.table);
  }

  /** Series the current table holds. */
  get size(): number {
    return this.count;
  }

  /** Bytes of the current table. */
  get bytes(): number {
    return tableBytes(this.slots);
  }

  /**
   * Sizes an empty table for `series` series (the head's, after a
   * restart), so that it is not replaced while they are learned.
   */
  reserve(series: number): void {
    if (this.count > 0) return;
    let slots = this.slots;
    while (series > slots * LOAD && slots < MAX_SLOTS) slots *= 2;
    if (slots !== this.slots) this.replace(slots);
  }

  /** Starts a write: the table to give its worker. Pair with end(). */
  begin(): CacheTicket {
    this.inflight++;
    return { table: this.table, seq: ++this.seq, seeds: this.seeds };
  }

  /** Ends a write begun with begin(), whatever became of it. */
  end(t: CacheTicket): void {
    this.inflight--;
    if (t.seq <= this.dropSeq && this.pendingOld > 0 && --this.pendingOld === 0) this.graveyard.clear();
  }

  /**
   * The batch (an append batch or a histogram batch) with every entry
   * given by the ref of a series the head no longer holds (dropped while
   * the write was in flight) turned back into an entry by labels (a new
   * batch), or `batch` itself when there is none. Every ref is checked, so
   * an entry can never be lost silently.
   * @throws Error naming the entry when a ref names a series that is
   *   neither live nor kept (nothing is appended then).
   */
  resolve(batch: ArrayBuffer, head: Head): ArrayBuffer {
    // Both kinds hold their label bytes last, their count in header word 3, and entries of the ENTRY layout.
    const v = new Uint32Array(batch, 0, 1)[0] === APPEND_BATCH_MAGIC ? viewAppendBatch(batch) : viewHistogramBatch(batch);
    const words = new Uint32Array(batch, v.entriesAt, (v.entries * ENTRY.size) >>> 2);
    const step = ENTRY.size >>> 2;
    const ref = ENTRY.ref >>> 2;
    let extra = 0;
    const stale: number[] = [];
    for (let i = 0; i < v.entries; i++) {
      const r = words[i * step + ref]!;
      if (r === 0 || head.get(r - 1) !== undefined) continue;
      const labels = this.graveyard.get(r - 1);
      if (labels === undefined) throw new Error(`series cache: batch entry ${i} names series ${r - 1}, which the head does not hold`);
      stale.push(i);
      extra += labels.length;
    }
    if (stale.length === 0) return batch;
    const size = v.labelsAt + v.labelBytes;
    const out = new ArrayBuffer(size + extra);
    const u8 = new Uint8Array(out);
    u8.set(new Uint8Array(batch, 0, size));
    const head32 = new Uint32Array(out, 0, 4);
    head32[3] = v.labelBytes + extra;
    const entries = new DataView(out, v.entriesAt, v.entries * ENTRY.size);
    let at = v.labelBytes;
    for (const i of stale) {
      const e = i * ENTRY.size;
      const labels = this.graveyard.get(entries.getUint32(e + ENTRY.ref, true) - 1)!;
      u8.set(labels, v.labelsAt + at);
      entries.setBigUint64(e + ENTRY.hash, head.hash(labels), true);
      entries.setUint32(e + ENTRY.ref, 0, true);
      entries.setUint32(e + ENTRY.labelsOff, at, true);
      entries.setUint32(e + ENTRY.labelsLen, labels.length, true);
      at += labels.length;
    }
    return out;
  }

  /**
   * Learns the series of write `t` that its worker did not find (`keys`:
   * ParsedWrite.keys) from the series ids its append gave their entries
   * (`ids`: id + 1 per entry, 0 for entries the head did not take): those
   * of the append batch, or with `histograms` those of the histogram
   * batch (the keys name its entries as ~entry). Call once for each batch
   * appended.
   */
  learn(t: CacheTicket, keys: ArrayBuffer, ids: Uint32Array, histograms = false): void {
    const k = new Int32Array(keys);
    let mine = 0;
    for (let at = 0; at + KEY_RECORD_WORDS <= k.length; at += KEY_RECORD_WORDS) if (k[at]! < 0 === histograms) mine++;
    this.misses += mine;
    // Keys made with other seeds: nothing to learn (a grown table keeps its seeds).
    if (t.seeds !== this.seeds || mine === 0) return;
    for (let at = 0; at + KEY_RECORD_WORDS <= k.length; at += KEY_RECORD_WORDS) {
      const entry = k[at]!;
      if (entry < 0 !== histograms) continue;
      const ref = ids[histograms ? ~entry : entry]!;
      if (ref === 0) continue;
      if ((this.count + 1) > this.slots * LOAD) {
        if (this.slots >= MAX_SLOTS) return;
        this.grow();
      }
      if (insertRef(this.words, k[at + 1]!, k[at + 2]!, k[at + 3]!, ref)) this.count++;
    }
  }

  /**
   * The head is about to drop these series (their labels still readable):
   * the table is replaced, and while writes begun before are in flight
   * their label bytes are kept for resolve().
   */
  released(ids: Uint32Array, head: Head): void {
    if (ids.length === 0) return;
    if (this.count > 0) this.replace(this.slots);
    if (this.inflight === 0) return;
    for (const id of ids) {
      const s = head.get(id);
      if (s !== undefined) this.graveyard.set(id, head.labelBytes(s));
    }
    this.dropSeq = this.seq;
    this.pendingOld = this.inflight;
  }

  /**
   * Twice the slots, the same seeds and keys: writes begun from now on
   * read it, and find every series learned so far.
   */
  private grow(): void {
    this.dropTable();
    this.slots *= 2;
    this.table = grownSeriesTable(this.table, this.slots);
    this.words = new Int32Array(this.table);
  }

  /** An empty table of `slots` slots, new seeds: writes begun from now on read it. */
  private replace(slots: number): void {
    this.dropTable();
    this.slots = slots;
    this.table = newSeriesTable(slots);
    this.words = new Int32Array(this.table);
    this.count = 0;
    this.seeds++;
  }

  /**
   * The current table is about to be garbage: counted as dropped, so that
   * the event loop collects once it is quiet. The table object has long
   * been in V8's old generation, which only a full collection frees: at
   * 1M series x 6 the 20 MiB table of 1M slots outlived the whole load
   * beside the 40 MiB one that replaced it.
   */
  private dropTable(): void {
    collectWhenQuiet(this.table.byteLength);
  }
}
