// The function exports of build/strata.wasm (assembly/index.ts), by the part
// of the module that defines them. One file for all of them because the module
// is one binary with one entry: every instance has every part (the thread's
// codec instance also hashes batches and keys requests), and a change to the
// entry's exports is mirrored here in one place. Its constants are not typed
// here: they are declared in layout.ts and checked at instantiation.
// Pointers are byte offsets into `memory`; i64 arguments and results are bigints.

/** The module's memory and its allocator (assembly/index.ts). */
export interface MemoryExports {
  memory: WebAssembly.Memory;
  /** `size` bytes, 16-byte aligned; may grow the memory (detaching every view of it). */
  alloc(size: number): number;
  free(ptr: number): void;
  /** Whole free pages of the allocator as [start, length] u32 pairs at `out` (room for `cap`); -1: unexpected layout (assembly/free-pages.ts). */
  heapFreePages(out: number, cap: number): number;
}

/** The XOR chunk codec (assembly/xor.ts): appender state APPENDER_SIZE bytes, iterator ITERATOR_SIZE. */
export interface XorExports {
  appenderInit(state: number, buf: number): void;
  appenderBytes(state: number): number;
  appenderCount(state: number): number;
  appendSamples(state: number, buf: number, cap: number, ts: number, vals: number, n: number): number;
  iterInit(it: number, buf: number, len: number): number;
  iterBatch(it: number, buf: number, len: number, tsOut: number, valOut: number, max: number): number;
  iterSeek(it: number, buf: number, len: number, target: bigint, tsOut: number, valOut: number): number;
  iterT(it: number): bigint;
  iterIndex(it: number): number;
  iterErr(it: number): number;
  decodeChunk(it: number, buf: number, len: number, tsOut: number, valOut: number, max: number): number;
  /** Sorted samples merged (assembly/merge.ts: i64 times at aT with f64 times at bT, u64 value bits; a time in both keeps a's), then encoded as chunks of at most `per` samples from `enc` (`cap` bytes of room each), a MERGED record each at `recs`; the chunk count, -1 if one did not fit. */
  mergeEncode(state: number, aT: number, aV: number, an: number, bT: number, bV: number, bn: number, outT: number, outV: number, per: number, enc: number, cap: number, recs: number): number;
}

/** xxHash64 (assembly/xxhash.ts): of bytes, and of every entry's labels in a batch. */
export interface HashExports {
  xxh64(ptr: number, len: number, seed: bigint): bigint;
  hashEntries(entries: number, n: number, labels: number, entrySize: number, hashAt: number, offAt: number, lenAt: number): void;
}

/** Remote-write series keys (assembly/series-keys.ts): one SERIES_KEY record per TimeSeries. */
export interface SeriesKeysExports {
  seriesKeys(req: number, len: number, out: number, cap: number, seedA: bigint, seedB: bigint): number;
  /** The two u64 at `out` := xxh64 of `len` bytes at `ptr` with each of the two u64 seeds at `seeds` (`out` may be `seeds`). */
  keyBytes(ptr: number, len: number, seeds: number, out: number): void;
}

/** The head's write path (assembly/head.ts): series SLOTs, batch ENTRYs, CUT records, STAT indices. */
export interface HeadExports {
  headInit(chunkRange: bigint, samplesPerChunk: number): void;
  headStatsReset(): void;
  headStat(i: number): number;
  headFirstEntry(i: number): number;
  headFirstT(i: number): bigint;
  headBatchMinT(): bigint;
  headBatchMaxT(): bigint;
  headWalPtr(): number;
  headWalLen(): number;
  headWalReset(): void;
  headCutsPtr(): number;
  headCutsCount(): number;
  headCutsRelease(): void;
  headMissingPtr(): number;
  headMissingCount(): number;
  headOooPtr(): number;
  headOooCount(): number;
  headSeriesCount(): number;
  headSlot(id: number): number;
  headFind(hash: bigint, labels: number, len: number): number;
  headFindWords(lo: number, hi: number, labels: number, len: number): number;
  headNewSeries(id: number, labels: number, len: number, hash: bigint): number;
  /** Creates n series from ids, n + 1 label offsets and label bytes (module addresses); their slots to `slots`. */
  headLoadSeries(ids: number, offs: number, labels: number, n: number, slots: number): void;
  /** Makes room in the series hash table for `n` more series. */
  headReserve(n: number): void;
  headDropSeries(id: number): void;
  headAppend(entries: number, n: number, list: number, listLen: number, labels: number, ts: number, vals: number,
    minValidT: bigint, maxValidT: bigint, oooMinT: bigint, walSeg: number, wantWal: number): number;
  headReplay(rec: number, len: number, walSeg: number, minValidT: bigint): number;
  headCutOpen(id: number): number;
  headDropOpen(id: number): void;
}

/**
 * Postings set algebra and label value matching (assembly/postings.ts,
 * assembly/matcher.ts). Lists are sorted, duplicate-free u32 ids; a
 * descriptor table is `k` (pointer, length) u32 pairs.
 */
export interface MatcherExports {
  intersect2(a: number, na: number, b: number, nb: number, out: number): number;
  intersectMany(desc: number, k: number, out: number, scratch: number): number;
  union2(a: number, na: number, b: number, nb: number, out: number): number;
  unionMany(desc: number, k: number, out: number, scratch: number): number;
  unionScratchBytes(desc: number, k: number): number;
  subtract(a: number, na: number, b: number, nb: number, out: number): number;
  matchValues(dict: number, offs: number, n: number, prog: number, want: number, out: number): number;
}

/** The histogram chunk codecs (assembly/histogram.ts): state HIST.STATE_SIZE bytes. */
export interface HistogramExports {
  histAppenderInit(state: number, buf: number): void;
  histWriteLayout(state: number, buf: number, layout: number, nPos: number, nNeg: number): void;
  histAppendInt(state: number, buckets: number, buf: number, cap: number, input: number, n: number): number;
  histAppendFloat(state: number, buckets: number, buf: number, cap: number, input: number, n: number): number;
  histAppenderBytes(state: number): number;
  histDecodeInit(it: number, buf: number, len: number, float: number): number;
  histDecodeSpans(it: number, buf: number, len: number, out: number): void;
  histDecode(it: number, buckets: number, buf: number, len: number, out: number, cap: number, float: number): number;
  histDecodeIndex(it: number): number;
  histDecodeField(it: number, field: number): number;
}

/** Every function export of one instance of build/strata.wasm (instantiateStrataWasm). */
export interface StrataWasm
  extends MemoryExports, XorExports, HashExports, SeriesKeysExports, HeadExports, MatcherExports, HistogramExports {}
