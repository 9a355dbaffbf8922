// The head's write path: series lookup by label hash, Prometheus' sample
// rules and chunk cutting, XOR append, and the WAL payload of what was
// accepted, all in one call per batch. The host keeps labels, postings and
// chunk files; this module keeps every open chunk and the series' append
// state, so a batch crosses into WebAssembly once, not once per sample.
import { xxh64 } from './xxhash';
import { A_T, MAX_SAMPLE_BYTES, SLACK_BYTES, appendSamples, appenderBytes, appenderCount, appenderInit } from './xor';

// The layouts the host shares are exported (index.ts names them SLOT_*,
// ENTRY_*, CUT_*, OOO_ENTRY_*, STAT_*) and mirrored in src/wasm/layout.ts,
// which checks them against these exports when it instantiates the module.

// Series slot: the XOR appender state (xor.ts: A_POS, A_COUNT, A_T and
// A_PAD_BYTE are its fields the host reads), then the series' own fields.
export const S_BUF: usize = 48; //        u32 open chunk buffer, 0 when there is none
export const S_CAP: usize = 52; //        u32 its capacity
export const S_MINT: usize = 56; //       i64 open chunk's first timestamp
const S_NEXTAT: usize = 64; //            i64 cut the chunk at a sample at or past this time
export const S_MAXT: usize = 72; //       i64 newest timestamp of the series
export const S_LASTV: usize = 80; //      u64 bits of the newest value
export const S_ID: usize = 88; //         u32 series id
export const S_FLAGS: usize = 92; //      u32 F_* bits
export const S_WALSEG: usize = 96; //     u32 WAL segment holding the open chunk's first sample
export const S_LABELS_LEN: usize = 100; // u32 length of the canonical label bytes (name 0xFF value 0xFF ...), which follow the slot
const S_HASH: usize = 104; //             u64 xxh64 of the label bytes
// 112, not 128: the slot and its label bytes are one allocator block, so
// every 16 bytes less is 16 bytes less a series (16 MB at a million).
export const SLOT_SIZE: u32 = 112;
export const F_HAS_DATA: u32 = 1;

// Batch entry: one series' run of samples (src/record/append-batch.ts and histogram-batch.ts write them).
export const E_HASH: usize = 0; //       u64 xxh64 of the label bytes
export const E_REF: usize = 8; //        u32 series id + 1, or 0 to look the series up by labels
export const E_LABELS_OFF: usize = 12; // u32 offset of the label bytes in the batch's label area
export const E_LABELS_LEN: usize = 16; // u32
export const E_START: usize = 20; //     u32 first sample index
export const E_COUNT: usize = 24; //     u32 samples
export const E_SLOT: usize = 28; //      u32 scratch: the series slot found
export const ENTRY_SIZE: u32 = 32;

// Cut chunk record handed to the host.
export const C_ID: usize = 0; //     u32 series id
export const C_LEN: usize = 4; //    u32 chunk bytes
export const C_MINT: usize = 8; //   i64
export const C_MAXT: usize = 16; //  i64
export const C_BUF: usize = 24; //   u32 chunk buffer, freed by headCutsRelease
export const C_COUNT: usize = 28; // u32 samples
export const CUT_SIZE: u32 = 32;

// Out-of-order list entry handed to the host (headOooPtr).
export const O_ID: usize = 0; //     u32 series id
export const O_ENTRY: usize = 4; //  u32 batch entry
export const O_SAMPLE: usize = 8; // u32 sample index
export const OOO_ENTRY_SIZE: u32 = 12;

// Statistics of the calls since headStatsReset, by index.
export const STAT_APPENDED: u32 = 0;
export const STAT_IGNORED: u32 = 1; // same timestamp and value as the newest: accepted, not stored again
export const STAT_OUT_OF_ORDER: u32 = 2;
export const STAT_CONFLICT: u32 = 3; // same timestamp as the newest, another value
export const STAT_TOO_OLD: u32 = 4;
export const STAT_MISSING: u32 = 5; // entries whose series does not exist yet
export const STAT_TOO_FAR: u32 = 6; // newer than maxValidT: too far in the future
export const STAT_OOO: u32 = 7; // out of order but within the window: listed for the host's out-of-order head
const STATS: u32 = 8;

// An open chunk's buffer needs MAX_SAMPLE_BYTES + SLACK_BYTES free before
// every append. 76 bytes is what the allocator gives for 64 anyway (an
// 80-byte block), and holds 6 node_exporter samples in 96% of series, where
// 64 held them in 70%: a buffer that moves leaves its old block free, and
// it stays free while no new series comes (37 bytes a series at 1M x 6).
const FIRST_CHUNK_BYTES: u32 = 76;
const MAX_HINT_BYTES: u32 = 4096;

let chunkRange: i64 = 7200000;
let samplesPerChunk: u32 = 120;

const stats = new StaticArray<u32>(STATS);
/** Per rejection reason: index of the first entry and timestamp rejected. */
const firstEntry = new StaticArray<u32>(STATS);
const firstT = new StaticArray<i64>(STATS);
let batchMinT: i64 = i64.MAX_VALUE;
let batchMaxT: i64 = i64.MIN_VALUE;

// Series by id (u32 slot pointers) and by hash (open addressing, linear
// probing: entries of u32 hash tag + u32 slot; 0 slot = empty).
let idSlots: usize = 0;
let idCap: u32 = 0;
let table: usize = 0;
let tableCap: u32 = 0;
let tableCount: u32 = 0;

// Outputs of the last calls: the WAL payload, cut chunks, missing entries.
let walOut: usize = 0;
let walCap: u32 = 0;
let walLen: u32 = 0; // 0 until the first accepted sample writes the base time
let cuts: usize = 0;
let cutsCap: u32 = 0;
let cutsCount: u32 = 0;
let missing: usize = 0;
let missingCap: u32 = 0;
let missingCount: u32 = 0;
// Out-of-order samples within the window, for the host: triples of u32
// (series id, batch entry, sample index). Rare by nature: the list costs
// nothing while samples come in order.
let ooo: usize = 0;
let oooCap: u32 = 0;
let oooCount: u32 = 0;

/** Sets the chunk range (ms, Prometheus' 2h block range by default) and the target samples per chunk. */
export function headInit(range: i64, perChunk: u32): void {
  chunkRange = range;
  samplesPerChunk = perChunk;
  if (table == 0) {
    tableCap = 1024;
    table = heap.alloc(<usize>tableCap << 3);
    memory.fill(table, 0, <usize>tableCap << 3);
  }
  headStatsReset();
}

export function headStatsReset(): void {
  for (let i: u32 = 0; i < STATS; i++) {
    stats[i] = 0;
    firstEntry[i] = u32.MAX_VALUE;
    firstT[i] = 0;
  }
  batchMinT = i64.MAX_VALUE;
  batchMaxT = i64.MIN_VALUE;
  oooCount = 0;
}

export function headStat(i: u32): u32 { return stats[i]; }
export function headFirstEntry(i: u32): u32 { return firstEntry[i]; }
export function headFirstT(i: u32): i64 { return firstT[i]; }
export function headBatchMinT(): i64 { return batchMinT; }
export function headBatchMaxT(): i64 { return batchMaxT; }
export function headWalPtr(): usize { return walOut; }
export function headWalLen(): u32 { return walLen; }
export function headWalReset(): void { walLen = 0; }
export function headCutsPtr(): usize { return cuts; }
export function headCutsCount(): u32 { return cutsCount; }
export function headMissingPtr(): usize { return missing; }
export function headMissingCount(): u32 { return missingCount; }
export function headSeriesCount(): u32 { return tableCount; }
export function headOooPtr(): usize { return ooo; }
export function headOooCount(): u32 { return oooCount; }

/** Frees the buffers of the cut chunks the host has copied and empties the list. */
export function headCutsRelease(): void {
  for (let i: u32 = 0; i < cutsCount; i++) heap.free(<usize>load<u32>(cuts + <usize>i * CUT_SIZE + C_BUF));
  cutsCount = 0;
}

/** The slot of series `id`, 0 when there is none. */
export function headSlot(id: u32): usize {
  return id < idCap ? <usize>load<u32>(idSlots + (<usize>id << 2)) : 0;
}

/** The slot of the series with these label bytes, 0 when there is none. */
export function headFind(hash: u64, labels: usize, len: u32): usize {
  const mask = tableCap - 1;
  const tag = <u32>(hash >>> 32);
  let i = <u32>hash & mask;
  while (true) {
    const e = table + (<usize>i << 3);
    const s = <usize>load<u32>(e, 4);
    if (s == 0) return 0;
    if (load<u32>(e) == tag && load<u64>(s + S_HASH) == hash && load<u32>(s + S_LABELS_LEN) == len
      && bytesEqual(s + <usize>SLOT_SIZE, labels, len)) return s;
    i = (i + 1) & mask;
  }
}

/** headFind with the hash as two words (low first): a caller without a BigInt makes none. */
export function headFindWords(lo: u32, hi: u32, labels: usize, len: u32): usize {
  return headFind((<u64>hi << 32) | <u64>lo, labels, len);
}

/**
 * Creates series `id` (not existing yet; ids need not be dense but each
 * costs 4 bytes up to the highest) with a copy of its label bytes.
 */
export function headNewSeries(id: u32, labels: usize, len: u32, hash: u64): usize {
  // The label bytes follow the slot in one block: a lookup that finds the
  // slot finds them in the next cache lines, not in another allocation.
  const s = heap.alloc(<usize>SLOT_SIZE + <usize>len);
  memory.fill(s, 0, SLOT_SIZE);
  const copy = s + <usize>SLOT_SIZE;
  memory.copy(copy, labels, len);
  store<u32>(s + S_ID, id);
  store<u32>(s + S_LABELS_LEN, len);
  store<u64>(s + S_HASH, hash);
  if (id >= idCap) {
    let cap = max<u32>(idCap << 1, 1024);
    while (cap <= id) cap <<= 1;
    idSlots = grow(idSlots, <usize>cap << 2);
    memory.fill(idSlots + (<usize>idCap << 2), 0, <usize>(cap - idCap) << 2);
    idCap = cap;
  }
  store<u32>(idSlots + (<usize>id << 2), <u32>s);
  if ((tableCount + 1) << 1 > tableCap) growTable();
  tableInsert(s, hash);
  tableCount++;
  return s;
}

/**
 * Creates `n` series at once (a head snapshot's load): series i has id
 * `ids[i]` (u32s at `ids`) and the label bytes [offs[i], offs[i + 1]) of
 * `labels` (n + 1 u32 offsets at `offs`); their slots go to `slots`. One
 * call for a batch, and the hash computed here: no BigInt per series on
 * the host.
 */
export function headLoadSeries(ids: usize, offs: usize, labels: usize, n: u32, slots: usize): void {
  for (let i: u32 = 0; i < n; i++) {
    const at = load<u32>(offs + (<usize>i << 2));
    const len = load<u32>(offs + (<usize>(i + 1) << 2)) - at;
    const p = labels + <usize>at;
    store<u32>(slots + (<usize>i << 2), <u32>headNewSeries(load<u32>(ids + (<usize>i << 2)), p, len, xxh64(p, len, 0)));
  }
}

/**
 * Makes room in the series hash table for `n` more series at once (before
 * a bulk load): one rehash, not one per doubling on the way.
 */
export function headReserve(n: u32): void {
  let cap = tableCap;
  while ((tableCount + n) << 1 > cap) cap <<= 1;
  if (cap != tableCap) growTable(cap);
}

/** Removes series `id`: its open chunk, label bytes and slot are freed. */
export function headDropSeries(id: u32): void {
  const s = headSlot(id);
  if (s == 0) return;
  tableDelete(s);
  tableCount--;
  store<u32>(idSlots + (<usize>id << 2), 0);
  const buf = <usize>load<u32>(s + S_BUF);
  if (buf != 0) heap.free(buf);
  heap.free(s);
}

/**
 * Appends a batch: `n` entries at `entries` (ENTRY_SIZE each), label bytes
 * at `labels`, timestamps (i64) and value bits (u64) at `ts`/`vals`.
 * With `list` != 0 only the `listLen` entry indices at `list` are done.
 * Samples older than `minValidT` are too old and samples newer than
 * `maxValidT` too far in the future, unless they are out of order within
 * the window: samples at or after `oooMinT` (i64.MAX_VALUE: no window) that
 * are older than `minValidT` or than the series' newest are not appended
 * but listed for the host (headOooPtr), which keeps them in its
 * out-of-order head. An entry whose series does not exist is listed in the
 * missing list and skipped. With `wantWal` accepted samples are appended to
 * the WAL payload (see walSamples below). Returns the number of missing
 * entries.
 */
export function headAppend(entries: usize, n: u32, list: usize, listLen: u32, labels: usize, ts: usize, vals: usize,
  minValidT: i64, maxValidT: i64, oooMinT: i64, walSeg: u32, wantWal: bool): u32 {
  missingCount = 0;
  const total = list != 0 ? listLen : n;
  // Entries go in blocks: first every lookup of the block touches its table
  // entry, series slot and chunk tail, then the block is appended. The
  // touches are independent loads the CPU overlaps, where one entry at a
  // time would wait for each cache miss in turn.
  for (let b: u32 = 0; b < total; b += BLOCK) {
    const end = min<u32>(total, b + BLOCK);
    // 1: the table entries (a probe by tag only).
    for (let j = b; j < end; j++) {
      const e = entries + <usize>entryIndex(list, j) * ENTRY_SIZE;
      store<u32>(e + E_SLOT, <u32>candidate(e));
    }
    // 2: the slots and their label bytes: confirm, or look up in full.
    let touched: u32 = 0;
    for (let j = b; j < end; j++) {
      const e = entries + <usize>entryIndex(list, j) * ENTRY_SIZE;
      const s = confirm(e, <usize>load<u32>(e + E_SLOT), labels);
      store<u32>(e + E_SLOT, <u32>s);
      if (s != 0) touched += load<u32>(<usize>load<u32>(s + S_BUF) + (<usize>load<u32>(s) >>> 3));
    }
    touchSink += touched;
    // 3: the appends.
    for (let j = b; j < end; j++) {
      const idx = entryIndex(list, j);
      const e = entries + <usize>idx * ENTRY_SIZE;
      const s = <usize>load<u32>(e + E_SLOT);
      if (s == 0) {
        if (load<u32>(e + E_REF) == 0) {
          pushMissing(idx);
          stats[STAT_MISSING]++;
        }
        continue;
      }
      const start = load<u32>(e + E_START);
      appendRun(s, ts + (<usize>start << 3), vals + (<usize>start << 3), load<u32>(e + E_COUNT), minValidT, maxValidT, oooMinT, start,
        walSeg, idx, wantWal);
    }
  }
  return missingCount;
}

/** Entries per block of headAppend: the block's slots stay in L1/L2 between its passes. */
const BLOCK: u32 = 64;
let touchSink: u32 = 0;

// @ts-ignore: decorator
@inline function entryIndex(list: usize, j: u32): u32 {
  return list != 0 ? load<u32>(list + (<usize>j << 2)) : j;
}

/** The entry's series by id, or the first slot of the table whose hash tag matches; 0 when none. */
function candidate(e: usize): usize {
  const ref = load<u32>(e + E_REF);
  if (ref != 0) return headSlot(ref - 1);
  const hash = load<u64>(e + E_HASH);
  const mask = tableCap - 1;
  const tag = <u32>(hash >>> 32);
  let i = <u32>hash & mask;
  while (true) {
    const t = table + (<usize>i << 3);
    const s = <usize>load<u32>(t, 4);
    if (s == 0 || load<u32>(t) == tag) return s;
    i = (i + 1) & mask;
  }
}

/** The entry's series slot, 0 when it has none, given the candidate. */
function confirm(e: usize, s: usize, labels: usize): usize {
  if (load<u32>(e + E_REF) != 0 || s == 0) return s;
  const hash = load<u64>(e + E_HASH);
  const at = labels + <usize>load<u32>(e + E_LABELS_OFF);
  const len = load<u32>(e + E_LABELS_LEN);
  if (load<u64>(s + S_HASH) == hash && load<u32>(s + S_LABELS_LEN) == len && bytesEqual(s + <usize>SLOT_SIZE, at, len)) return s;
  return headFind(hash, at, len);
}

/**
 * Replays a WAL samples payload without rejecting: samples at or before a
 * series' newest are skipped, which is how replay skips what the chunk
 * files already hold, and so are samples older than `minValidT`, which
 * blocks hold. Groups of series that no longer exist are skipped.
 * Returns 0, or -1 if the payload is malformed.
 */
export function headReplay(rec: usize, len: u32, walSeg: u32, minValidT: i64): i32 {
  const end = rec + <usize>len;
  if (len < 8) return len == 0 ? 0 : -1;
  const baseT = load<i64>(rec);
  let p = rec + 8;
  let id: i64 = 0;
  ensureScratch(256);
  while (p < end) {
    p = readVarint(p, end);
    if (varErr) return -1;
    id += unzigzag(varVal);
    p = readVarint(p, end);
    if (varErr) return -1;
    const count = <u32>varVal;
    if (<u64>count > <u64>(end - p) / 9) return -1;
    ensureScratch(count);
    let t = baseT;
    for (let k: u32 = 0; k < count; k++) {
      p = readVarint(p, end);
      if (varErr || p + 8 > end) return -1;
      t += unzigzag(varVal);
      store<i64>(scratchTs + (<usize>k << 3), t);
      store<u64>(scratchVals + (<usize>k << 3), load<u64>(p));
      p += 8;
    }
    if (id < 0 || id > <i64>u32.MAX_VALUE) return -1;
    const s = headSlot(<u32>id);
    if (s != 0) appendRun(s, scratchTs, scratchVals, count, minValidT, i64.MAX_VALUE, i64.MAX_VALUE, 0, walSeg, 0, false);
  }
  return 0;
}

/** Cuts the open chunk of series `id` (if it has one) into the cut list. Returns 1 if it did. */
export function headCutOpen(id: u32): u32 {
  const s = headSlot(id);
  if (s == 0 || load<u32>(s + S_BUF) == 0) return 0;
  cut(s);
  return 1;
}

/** Drops the open chunk of series `id` without handing it over (retention). */
export function headDropOpen(id: u32): void {
  const s = headSlot(id);
  if (s == 0) return;
  const buf = <usize>load<u32>(s + S_BUF);
  if (buf != 0) heap.free(buf);
  store<u32>(s + S_BUF, 0);
  store<u32>(s + S_CAP, 0);
}

function appendRun(s: usize, ts: usize, vals: usize, count: u32, minValidT: i64, maxValidT: i64, oooMinT: i64, first: u32,
  walSeg: u32, entry: u32, wantWal: bool): void {
  let hasData = (load<u32>(s + S_FLAGS) & F_HAS_DATA) != 0;
  let maxT = load<i64>(s + S_MAXT);
  let lastV = load<u64>(s + S_LASTV);
  let accepted: u32 = 0;
  let countAt: usize = 0;
  let prevT: i64 = 0;
  for (let k: u32 = 0; k < count; k++) {
    const t = load<i64>(ts + (<usize>k << 3));
    const v = load<u64>(vals + (<usize>k << 3));
    if (t < minValidT || t > maxValidT) {
      if (t > maxValidT) reject(STAT_TOO_FAR, entry, t);
      else if (t >= oooMinT) pushOoo(s, entry, first + k);
      else reject(STAT_TOO_OLD, entry, t);
      continue;
    }
    if (hasData && t <= maxT) {
      if (t < maxT) {
        if (t >= oooMinT) pushOoo(s, entry, first + k);
        // With a window, what lies before it is too old (Prometheus' ErrTooOldSample).
        else reject(oooMinT == i64.MAX_VALUE ? STAT_OUT_OF_ORDER : STAT_TOO_OLD, entry, t);
      } else if (v != lastV) reject(STAT_CONFLICT, entry, t);
      else stats[STAT_IGNORED]++;
      continue;
    }
    let buf = <usize>load<u32>(s + S_BUF);
    if (buf == 0) {
      // No chunk before it to size this one by: FIRST_CHUNK_BYTES.
      buf = openChunk(s, t, 0, walSeg);
    } else {
      const n = appenderCount(s);
      // Prometheus' cut rule: at a quarter of the target, predict an end
      // time that spreads the rest of the chunk range over equal chunks;
      // cut at that time, or at twice the target if the rate went up.
      if (n == samplesPerChunk >>> 2) {
        store<i64>(s + S_NEXTAT, chunkEndTime(load<i64>(s + S_MINT), load<i64>(s + A_T), load<i64>(s + S_NEXTAT)));
      }
      if (t >= load<i64>(s + S_NEXTAT) || n >= samplesPerChunk << 1) {
        const hint = appenderBytes(s);
        cut(s);
        buf = openChunk(s, t, hint, walSeg);
      }
    }
    let cap = load<u32>(s + S_CAP);
    const need = appenderBytes(s) + MAX_SAMPLE_BYTES + SLACK_BYTES;
    if (need > cap) {
      cap = blockFit(max<u32>(cap << 1, need));
      buf = heap.realloc(buf, cap);
      store<u32>(s + S_BUF, <u32>buf);
      store<u32>(s + S_CAP, cap);
    }
    appendSamples(s, buf, cap, ts + (<usize>k << 3), vals + (<usize>k << 3), 1);
    hasData = true;
    maxT = t;
    lastV = v;
    if (t < batchMinT) batchMinT = t;
    if (t > batchMaxT) batchMaxT = t;
    if (wantWal) {
      if (accepted == 0) {
        countAt = walGroupStart(load<u32>(s + S_ID), count - k, t);
        prevT = walBaseT;
      }
      walSample(t - prevT, v);
      prevT = t;
    }
    accepted++;
  }
  stats[STAT_APPENDED] += accepted;
  store<u32>(s + S_FLAGS, hasData ? F_HAS_DATA : 0);
  store<i64>(s + S_MAXT, maxT);
  store<u64>(s + S_LASTV, lastV);
  if (countAt != 0) walGroupCount(countAt, accepted);
}

// The WAL samples payload, compact because it is written for every sample:
//   [base time i64]
//   groups: [series id, zigzag varint delta from the previous group's id]
//           [count, 5-byte varint]
//           count x [zigzag varint delta of the time (from the base for the
//                    first sample, then from the previous one)][value bits u64]
// A scrape (one sample per series, one time for all) costs 11 bytes a sample.
let walBaseT: i64 = 0;
let walPrevId: i64 = 0;

/** Opens a group for series `id` with room for `most` samples; returns where its count goes. */
function walGroupStart(id: u32, most: u32, firstT: i64): usize {
  if (walLen == 0) {
    ensureWal(8);
    store<i64>(walOut, firstT);
    walLen = 8;
    walBaseT = firstT;
    walPrevId = 0;
  }
  ensureWal(10 + 5 + most * 18);
  let p = walOut + <usize>walLen;
  p = writeVarint(p, zigzag(<i64>id - walPrevId));
  walPrevId = <i64>id;
  const countAt = p;
  walLen = <u32>(p + 5 - walOut);
  return countAt;
}

function walSample(dt: i64, v: u64): void {
  let p = writeVarint(walOut + <usize>walLen, zigzag(dt));
  store<u64>(p, v);
  walLen = <u32>(p + 8 - walOut);
}

/** Writes the count in its 5 reserved bytes (a varint padded with continuation bytes). */
function walGroupCount(at: usize, count: u32): void {
  store<u8>(at, <u8>(count & 0x7f) | 0x80);
  store<u8>(at + 1, <u8>((count >>> 7) & 0x7f) | 0x80);
  store<u8>(at + 2, <u8>((count >>> 14) & 0x7f) | 0x80);
  store<u8>(at + 3, <u8>((count >>> 21) & 0x7f) | 0x80);
  store<u8>(at + 4, <u8>(count >>> 28));
}

// @ts-ignore: decorator
@inline function zigzag(x: i64): u64 {
  return <u64>((x << 1) ^ (x >> 63));
}

// @ts-ignore: decorator
@inline function unzigzag(x: u64): i64 {
  return <i64>(x >>> 1) ^ -(<i64>(x & 1));
}

function writeVarint(p: usize, x: u64): usize {
  while (x >= 0x80) {
    store<u8>(p++, <u8>(x & 0x7f) | 0x80);
    x >>>= 7;
  }
  store<u8>(p++, <u8>x);
  return p;
}

let varVal: u64 = 0;
let varErr = false;

/** Reads a varint of at most 10 bytes at `p` (< end) into varVal; sets varErr if it is cut short or too long. */
function readVarint(p: usize, end: usize): usize {
  let x: u64 = 0;
  let shift: u64 = 0;
  varErr = false;
  while (p < end && shift < 70) {
    const b = <u64>load<u8>(p++);
    x |= (b & 0x7f) << shift;
    if (b < 0x80) {
      varVal = x;
      return p;
    }
    shift += 7;
  }
  varErr = true;
  return p;
}

let scratchTs: usize = 0;
let scratchVals: usize = 0;
let scratchCap: u32 = 0;

function ensureScratch(n: u32): void {
  if (n <= scratchCap) return;
  let cap = max<u32>(scratchCap << 1, 256);
  while (cap < n) cap <<= 1;
  scratchTs = grow(scratchTs, <usize>cap << 3);
  scratchVals = grow(scratchVals, <usize>cap << 3);
  scratchCap = cap;
}

function reject(reason: u32, entry: u32, t: i64): void {
  if (stats[reason] == 0) {
    firstEntry[reason] = entry;
    firstT[reason] = t;
  }
  stats[reason]++;
}

/** Go's integer division truncates toward zero, and so does this. */
function rangeEnd(t: i64): i64 {
  return (t / chunkRange) * chunkRange + chunkRange;
}

/** Prometheus' computeChunkEndTime: the chunk is assumed a quarter full at `cur`. */
function chunkEndTime(start: i64, cur: i64, maxT: i64): i64 {
  const n = (maxT - start) / ((cur - start + 1) * 4);
  if (n <= 1) return maxT;
  return start + (maxT - start) / n;
}

function openChunk(s: usize, t: i64, hint: u32, walSeg: u32): usize {
  let cap = FIRST_CHUNK_BYTES;
  const want = min<u32>(hint + MAX_SAMPLE_BYTES + SLACK_BYTES, MAX_HINT_BYTES);
  while (cap < want) cap = blockFit(cap << 1);
  const buf = heap.alloc(cap);
  appenderInit(s, buf);
  store<u32>(s + S_BUF, <u32>buf);
  store<u32>(s + S_CAP, cap);
  store<i64>(s + S_MINT, t);
  store<i64>(s + S_NEXTAT, rangeEnd(t));
  store<u32>(s + S_WALSEG, walSeg);
  return buf;
}

function cut(s: usize): void {
  if (cutsCount == cutsCap) {
    cutsCap = max<u32>(cutsCap << 1, 256);
    cuts = grow(cuts, <usize>cutsCap * CUT_SIZE);
  }
  const c = cuts + <usize>cutsCount * CUT_SIZE;
  store<u32>(c + C_ID, load<u32>(s + S_ID));
  store<u32>(c + C_LEN, appenderBytes(s));
  store<i64>(c + C_MINT, load<i64>(s + S_MINT));
  store<i64>(c + C_MAXT, load<i64>(s + A_T));
  store<u32>(c + C_BUF, load<u32>(s + S_BUF));
  store<u32>(c + C_COUNT, appenderCount(s));
  cutsCount++;
  store<u32>(s + S_BUF, 0);
  store<u32>(s + S_CAP, 0);
}

function pushOoo(s: usize, entry: u32, sample: u32): void {
  if (oooCount == oooCap) {
    oooCap = max<u32>(oooCap << 1, 256);
    ooo = grow(ooo, <usize>oooCap * OOO_ENTRY_SIZE);
  }
  const p = ooo + <usize>oooCount * OOO_ENTRY_SIZE;
  store<u32>(p, load<u32>(s + S_ID), O_ID);
  store<u32>(p, entry, O_ENTRY);
  store<u32>(p, sample, O_SAMPLE);
  oooCount++;
  stats[STAT_OOO]++;
}

function pushMissing(idx: u32): void {
  if (missingCount == missingCap) {
    missingCap = max<u32>(missingCap << 1, 256);
    missing = grow(missing, <usize>missingCap << 2);
  }
  store<u32>(missing + (<usize>missingCount << 2), idx);
  missingCount++;
}

function ensureWal(extra: u32): void {
  const need = walLen + extra;
  if (need <= walCap) return;
  let cap = max<u32>(walCap << 1, 65536);
  while (cap < need) cap <<= 1;
  walOut = grow(walOut, cap);
  walCap = cap;
}

/** memory.compare goes byte by byte; label sets are compared 8 bytes at a time. */
function bytesEqual(a: usize, b: usize, len: u32): bool {
  let i: usize = 0;
  const n = <usize>len;
  for (; i + 8 <= n; i += 8) if (load<u64>(a + i) != load<u64>(b + i)) return false;
  for (; i < n; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false;
  return true;
}

/**
 * `size` rounded up to what the allocator (AssemblyScript's TLSF: 16-byte
 * blocks with a 4-byte header) hands out for it anyway: the bytes past the
 * request would be unused otherwise.
 */
function blockFit(size: u32): u32 {
  return ((size + 4 + 15) & ~15) - 4;
}

/** heap.realloc, which needs a block: null allocates. */
function grow(ptr: usize, size: usize): usize {
  return ptr == 0 ? heap.alloc(size) : heap.realloc(ptr, size);
}

function tableInsert(s: usize, hash: u64): void {
  const mask = tableCap - 1;
  let i = <u32>hash & mask;
  while (load<u32>(table + (<usize>i << 3), 4) != 0) i = (i + 1) & mask;
  const e = table + (<usize>i << 3);
  store<u32>(e, <u32>(hash >>> 32));
  store<u32>(e, <u32>s, 4);
}

function growTable(cap: u32 = tableCap << 1): void {
  const old = table;
  const oldCap = tableCap;
  tableCap = cap;
  table = heap.alloc(<usize>tableCap << 3);
  memory.fill(table, 0, <usize>tableCap << 3);
  for (let i: u32 = 0; i < oldCap; i++) {
    const s = <usize>load<u32>(old + (<usize>i << 3), 4);
    if (s != 0) tableInsert(s, load<u64>(s + S_HASH));
  }
  heap.free(old);
}

/** Linear probing deletion by backward shift: no tombstones, probes stay short. */
function tableDelete(s: usize): void {
  const mask = tableCap - 1;
  let i = <u32>load<u64>(s + S_HASH) & mask;
  while (<usize>load<u32>(table + (<usize>i << 3), 4) != s) i = (i + 1) & mask;
  let hole = i;
  let j = (i + 1) & mask;
  while (true) {
    const js = <usize>load<u32>(table + (<usize>j << 3), 4);
    if (js == 0) break;
    const home = <u32>load<u64>(js + S_HASH) & mask;
    // Move j into the hole unless its home lies cyclically in (hole, j].
    const between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!between) {
      store<u64>(table + (<usize>hole << 3), load<u64>(table + (<usize>j << 3)));
      hole = j;
    }
    j = (j + 1) & mask;
  }
  store<u64>(table + (<usize>hole << 3), 0);
}
