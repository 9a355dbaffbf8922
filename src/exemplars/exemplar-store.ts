/**
 * The exemplar store: a bounded circular buffer of exemplars with an index
 * by series, as Prometheus keeps them (tsdb/exemplar.go,
 * CircularExemplarStorage). `--tsdb.max-exemplars` slots; once they are
 * all taken, each new exemplar replaces the oldest one appended, whatever
 * its series. Each series' exemplars form a doubly linked list through the
 * slots, oldest to newest, so a query walks only the series it selects.
 *
 * Rules, as Prometheus applies them with no out-of-order window:
 * - an exemplar equal to the series' newest (labels, timestamp, value) is
 *   a duplicate: accepted, stored once;
 * - one older than the newest, or of the same time with a smaller value
 *   (or the same value and a smaller label hash: several exemplars of one
 *   scrape, a native histogram's, are kept in a fixed order), is out of
 *   order: refused;
 * - labels longer than 128 characters in all (names and values, as
 *   OpenMetrics limits them) are refused.
 *
 * Slots are typed-array columns (time, value bits, links); only a slot's
 * label string and its series are references. One writer: call every
 * method from the thread that owns the store.
 */

/** OpenMetrics: "The combined length of the label names and values of an Exemplar's LabelSet MUST NOT exceed 128 UTF-8 characters." */
export const EXEMPLAR_MAX_LABEL_CHARS = 128;

/** What became of one exemplar offered to the store. */
export type ExemplarOutcome = 'added' | 'duplicate' | 'out-of-order' | 'too-long' | 'disabled';

/** A series as the store knows it. */
export interface ExemplarSeries {
  /** Canonical label bytes as a latin1 string (one char per byte): the index key. */
  readonly key: string;
  /** [name, value, ...] in name order. */
  readonly labels: readonly string[];
  /** The head series' id, for the WAL (it may have left the head since). */
  readonly id: number;
}

/** One stored exemplar, as a query answers it. */
export interface StoredExemplar {
  /** The exemplar's canonical label bytes as a latin1 string (see exemplarLabelsOf). */
  labelsKey: string;
  /** Low and high 32 bits of the value. */
  valueLo: number;
  valueHi: number;
  ts: number;
}

/** One series' exemplars within a query's range, oldest first. */
export interface ExemplarQueryResult {
  seriesLabels: readonly string[];
  exemplars: StoredExemplar[];
}

interface IndexEntry {
  series: ExemplarSeries;
  oldest: number;
  newest: number;
}

const NONE = -1;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function asNumber(lo: number, hi: number): number {
  u32[0] = lo;
  u32[1] = hi;
  return f64[0]!;
}

/** Characters (code points) of the names and values of canonical label bytes held as latin1. */
function labelChars(key: string): number {
  let n = 0;
  for (let i = 0; i < key.length; i++) {
    const b = key.charCodeAt(i);
    // Count UTF-8 lead bytes; continuation bytes (10xxxxxx) and the 0xFF separators are not characters.
    if (b !== 0xff && (b & 0xc0) !== 0x80) n++;
  }
  return n;
}

/** An exemplar's labels, [name, value, ...], from its canonical bytes held as latin1. */
export function exemplarLabelsOf(key: string): string[] {
  const bytes = Buffer.from(key, 'latin1');
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0xff) continue;
    out.push(bytes.toString('utf8', start, i));
    start = i + 1;
  }
  return out;
}

export class ExemplarStore {
  private readonly cap: number;
  // The slot columns, allocated when the first exemplar arrives: a store
  // that is never sent exemplars costs nothing.
  private ts = new Float64Array(0);
  /** Two words per slot: the value's bits, low word first. */
  private bits = new Uint32Array(0);
  private next = new Int32Array(0);
  private prev = new Int32Array(0);
  private refs: (IndexEntry | undefined)[] = [];
  private keys: (string | undefined)[] = [];
  private readonly index = new Map<string, IndexEntry>();
  private nextIndex = 0;
  private stored = 0;
  /** Exemplars added since start (replay included), and refused as out of order: for metrics. */
  addedTotal = 0;
  outOfOrderTotal = 0;

  /**
   * @param capacity - the most exemplars kept (--tsdb.max-exemplars); 0 or
   *   less keeps none, and every exemplar offered is 'disabled'
   * @param hash - the hash Prometheus orders exemplars of one time and value
   *   by: xxh64 of the canonical label bytes (labels.Hash())
   */
  constructor(capacity: number, private readonly hash: (canonical: Uint8Array) => bigint) {
    this.cap = Math.max(0, Math.floor(capacity));
  }

  get capacity(): number {
    return this.cap;
  }

  private allocate(): void {
    const n = this.cap;
    this.ts = new Float64Array(n);
    this.bits = new Uint32Array(2 * n);
    this.next = new Int32Array(n);
    this.prev = new Int32Array(n);
    this.refs = new Array<IndexEntry | undefined>(n).fill(undefined);
    this.keys = new Array<string | undefined>(n).fill(undefined);
  }

  /** Exemplars held. */
  get size(): number {
    return this.stored;
  }

  /** Series with at least one exemplar held. */
  get seriesCount(): number {
    return this.index.size;
  }

  /**
   * Offers one exemplar of `series` (timestamp in ms, value as its two
   * 32-bit halves, labels as canonical bytes held as latin1) and says what
   * became of it (the rules in the file comment).
   */
  add(series: ExemplarSeries, ts: number, valueLo: number, valueHi: number, labelsKey: string): ExemplarOutcome {
    const cap = this.cap;
    if (cap === 0) return 'disabled';
    if (labelChars(labelsKey) > EXEMPLAR_MAX_LABEL_CHARS) return 'too-long';
    if (this.ts.length === 0) this.allocate();
    let idx = this.index.get(series.key);
    if (idx !== undefined) {
      // The same labels, maybe a new head series (the old one dropped): the WAL needs the live id.
      if (idx.series.id !== series.id) idx.series = series;
      const n = idx.newest;
      const newestTs = this.ts[n]!;
      const value = asNumber(valueLo, valueHi);
      const newestValue = asNumber(this.bits[2 * n]!, this.bits[2 * n + 1]!);
      if (ts === newestTs && value === newestValue && labelsKey === this.keys[n]) return 'duplicate';
      if (ts < newestTs || (ts === newestTs && (value < newestValue ||
        (value === newestValue && this.labelHash(labelsKey) < this.labelHash(this.keys[n]!))))) {
        this.outOfOrderTotal++;
        return 'out-of-order';
      }
    }

    // Take the slot at nextIndex, letting go of the exemplar in it.
    const slot = this.nextIndex;
    const old = this.refs[slot];
    if (old !== undefined) {
      this.unlink(slot, old);
      if (old.oldest === NONE) {
        this.index.delete(old.series.key);
        if (old === idx) idx = undefined;
      }
    } else {
      this.stored++;
    }
    if (idx === undefined) {
      idx = { series, oldest: slot, newest: slot };
      this.index.set(series.key, idx);
      this.prev[slot] = NONE;
    } else {
      this.next[idx.newest] = slot;
      this.prev[slot] = idx.newest;
      idx.newest = slot;
    }
    this.next[slot] = NONE;
    this.ts[slot] = ts;
    this.bits[2 * slot] = valueLo;
    this.bits[2 * slot + 1] = valueHi;
    this.keys[slot] = labelsKey;
    this.refs[slot] = idx;
    this.nextIndex = (slot + 1) % cap;
    this.addedTotal++;
    return 'added';
  }

  /**
   * The exemplars within [start, end] (ms, inclusive) of every series
   * `selects` accepts, sorted by series labels with `compare`, each
   * series' exemplars oldest first; series with none in range are left out.
   */
  select(
    start: number,
    end: number,
    selects: (labels: readonly string[]) => boolean,
    compare: (a: readonly string[], b: readonly string[]) => number,
  ): ExemplarQueryResult[] {
    const out: ExemplarQueryResult[] = [];
    for (const idx of this.index.values()) {
      if (this.ts[idx.oldest]! > end || this.ts[idx.newest]! < start) continue;
      if (!selects(idx.series.labels)) continue;
      const exemplars: StoredExemplar[] = [];
      for (let i = idx.oldest; i !== NONE && this.ts[i]! <= end; i = this.next[i]!) {
        if (this.ts[i]! >= start) {
          exemplars.push({ labelsKey: this.keys[i]!, valueLo: this.bits[2 * i]!, valueHi: this.bits[2 * i + 1]!, ts: this.ts[i]! });
        }
      }
      if (exemplars.length > 0) out.push({ seriesLabels: idx.series.labels, exemplars });
    }
    return out.sort((a, b) => compare(a.seriesLabels, b.seriesLabels));
  }

  /** Calls `visit` for every exemplar held, oldest appended first (the order to append them again in). */
  forEach(visit: (series: ExemplarSeries, e: StoredExemplar) => void): void {
    const cap = this.ts.length; // 0 until the first exemplar
    for (let k = 0, i = this.nextIndex; k < cap; k++, i = (i + 1) % cap) {
      const ref = this.refs[i];
      if (ref === undefined) continue;
      visit(ref.series, { labelsKey: this.keys[i]!, valueLo: this.bits[2 * i]!, valueHi: this.bits[2 * i + 1]!, ts: this.ts[i]! });
    }
  }

  /** The oldest and newest exemplar times held; undefined when empty. */
  timeRange(): { min: number; max: number } | undefined {
    if (this.index.size === 0) return undefined;
    let min = Infinity;
    let max = -Infinity;
    for (const idx of this.index.values()) {
      if (this.ts[idx.oldest]! < min) min = this.ts[idx.oldest]!;
      if (this.ts[idx.newest]! > max) max = this.ts[idx.newest]!;
    }
    return { min, max };
  }

  /** Takes slot `i` out of its series' list; the series' list is empty afterwards when `ref.oldest` is NONE. */
  private unlink(i: number, ref: IndexEntry): void {
    const p = this.prev[i]!;
    const n = this.next[i]!;
    if (p !== NONE) this.next[p] = n;
    else ref.oldest = n;
    if (n !== NONE) this.prev[n] = p;
    else ref.newest = p;
    this.refs[i] = undefined;
    this.keys[i] = undefined;
  }

  private labelHash(key: string): bigint {
    return this.hash(Buffer.from(key, 'latin1'));
  }
}
