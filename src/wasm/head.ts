import { instantiateStrataWasm } from './module.js';
import type { StrataWasm } from './module.js';

/** The head's exports of build/strata.wasm (assembly/head.ts, assembly/xxhash.ts). */
export interface HeadWasm extends StrataWasm {
  xxh64(ptr: number, len: number, seed: bigint): bigint;
  hashEntries(entries: number, n: number, labels: number, entrySize: number, hashAt: number, offAt: number, lenAt: number): void;
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
  headNewSeries(id: number, labels: number, len: number, hash: bigint): number;
  headDropSeries(id: number): void;
  headAppend(entries: number, n: number, list: number, listLen: number, labels: number, ts: number, vals: number,
    minValidT: bigint, maxValidT: bigint, oooMinT: bigint, walSeg: number, wantWal: number): number;
  headReplay(rec: number, len: number, walSeg: number, minValidT: bigint): number;
  headCutOpen(id: number): number;
  headDropOpen(id: number): void;
}

/** A new module instance for one head (its memory holds every open chunk). */
export function instantiateHeadWasm(): HeadWasm {
  return instantiateStrataWasm() as HeadWasm;
}

// Series slot layout, as assembly/head.ts defines it (byte offsets).
export const SLOT = {
  bitPos: 0, // u32 bits written (appender state)
  count: 4, // u32 samples in the open chunk (appender state)
  lastT: 8, // i64 last timestamp of the open chunk
  padByte: 40, // u32 1 when the chunk ends in Prometheus' spare zero byte
  buf: 48,
  cap: 52,
  minT: 56,
  maxT: 72, // i64 newest timestamp of the series
  id: 88, // u32 series id
  flags: 92,
  walSeg: 96,
} as const;
export const SLOT_HAS_DATA = 1;

// Batch entry layout (32 bytes).
export const ENTRY = { size: 32, hash: 0, ref: 8, labelsOff: 12, labelsLen: 16, start: 20, count: 24, slot: 28 } as const;

// Cut chunk record layout (32 bytes).
export const CUT = { size: 32, id: 0, len: 4, minT: 8, maxT: 16, buf: 24, count: 28 } as const;

/** Indices of headStat: what became of the samples of the calls since headStatsReset. */
export const STAT = { appended: 0, ignored: 1, outOfOrder: 2, conflict: 3, tooOld: 4, missing: 5, tooFar: 6, ooo: 7 } as const;

/** Out-of-order list entry (headOooPtr): series id, batch entry, sample index; u32 each. */
export const OOO_ENTRY = { size: 12, id: 0, entry: 4, sample: 8 } as const;
