/**
 * The head chunks recovery found, waiting for their series' WAL record:
 * kept flat in typed arrays while the chunk files are scanned, then
 * grouped by series id once (a counting sort, stable: each series' chunks
 * stay in file order, which is time order). With a million series this
 * replaces a Map entry and a growing array per series, made while the
 * chunk files are scanned, by a few typed arrays: less for the garbage
 * collector, and no hashing per chunk.
 */
export class PendingChunks {
  private ids = new Uint32Array(1024);
  private triples = new Float64Array(3 * 1024);
  private n = 0;
  private maxId = 0;
  /** After group(): where each id's triples start in `sorted` (ids + 1 entries). */
  private starts: Uint32Array | undefined;
  private sorted: Float64Array | undefined;
  /** After group(): ids whose chunks were taken. */
  private taken: Uint8Array | undefined;

  /** Adds chunk `ref` of series `id`; chunks of one series come in time order. */
  add(id: number, ref: number, minT: number, maxT: number): void {
    if (this.starts !== undefined) throw new Error('PendingChunks.add after group()');
    if (this.n === this.ids.length) {
      const ids = new Uint32Array(this.n * 2);
      ids.set(this.ids);
      this.ids = ids;
      const triples = new Float64Array(this.n * 6);
      triples.set(this.triples);
      this.triples = triples;
    }
    this.ids[this.n] = id;
    const t = 3 * this.n;
    this.triples[t] = ref;
    this.triples[t + 1] = minT;
    this.triples[t + 2] = maxT;
    this.n++;
    if (id > this.maxId) this.maxId = id;
  }

  /** Groups the chunks by series; call once, after the last add. */
  group(): void {
    const starts = new Uint32Array(this.maxId + 2);
    for (let i = 0; i < this.n; i++) starts[this.ids[i]! + 1]!++;
    for (let id = 1; id < starts.length; id++) starts[id]! += starts[id - 1]!;
    const fill = starts.slice(0, this.maxId + 1);
    const sorted = new Float64Array(3 * this.n);
    for (let i = 0; i < this.n; i++) {
      const at = 3 * fill[this.ids[i]!]!++;
      sorted[at] = this.triples[3 * i]!;
      sorted[at + 1] = this.triples[3 * i + 1]!;
      sorted[at + 2] = this.triples[3 * i + 2]!;
    }
    this.starts = starts;
    this.sorted = sorted;
    this.taken = new Uint8Array(this.maxId + 1);
    this.ids = new Uint32Array(0);
    this.triples = new Float64Array(0);
  }

  /** Series `id`'s chunks as [ref, minT, maxT, ...] (a new array it may own), or undefined when it has none or they were taken. */
  take(id: number): number[] | undefined {
    const starts = this.starts;
    if (starts === undefined) throw new Error('PendingChunks.take before group()');
    if (id > this.maxId || this.taken![id] === 1) return undefined;
    const from = starts[id]!;
    const to = starts[id + 1]!;
    if (from === to) return undefined;
    this.taken![id] = 1;
    // Sized once and filled in a plain loop: Array.from over a subarray made
    // a view and went through the iterator protocol per series, and pushes
    // would leave spare capacity on a million small arrays.
    const sorted = this.sorted!;
    // One chunk (the common case): a literal is made a double array at once,
    // where filling a new Array(3) makes a second backing store for the doubles.
    if (to - from === 1) return [sorted[3 * from]!, sorted[3 * from + 1]!, sorted[3 * from + 2]!];
    const out = new Array<number>(3 * (to - from));
    for (let i = 0; i < out.length; i++) out[i] = sorted[3 * from + i]!;
    return out;
  }

  /** Series with chunks that nobody took (series retention dropped before the WAL was checkpointed). */
  untaken(): number {
    const starts = this.starts;
    if (starts === undefined) return 0;
    let n = 0;
    for (let id = 0; id <= this.maxId; id++) if (starts[id + 1]! > starts[id]! && this.taken![id] === 0) n++;
    return n;
  }
}
