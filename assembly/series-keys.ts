// Raw label keys of a remote-write request (src/ingest/series-cache.ts):
// one walk over a WriteRequest's TimeSeries (field 1 of both thanos.WriteRequest
// and prometheus.WriteRequest) that finds, for each, the bytes of its leading
// Label fields and hashes them twice (two seeds: a 128-bit key). A known
// series is then found by its key without reading its labels.
import { xxh64 } from './xxhash';

// Output record per TimeSeries, in request order. Exported as SERIES_KEY_*
// (index.ts) and mirrored in src/wasm/layout.ts, which checks them when it
// instantiates the module.
export const K_START: usize = 0; //   u32 first byte of the TimeSeries' fields
export const K_END: usize = 4; //     u32 end of the TimeSeries
export const K_LABELS: usize = 8; //  u32 end of its leading Label fields
export const K_FLAGS: usize = 12; //  u32 KEYED when the key may stand for the labels
export const K_A: usize = 16; //      u64 xxh64(label bytes, seedA)
export const K_B: usize = 24; //      u64 xxh64(label bytes, seedB)
export const KEY_SIZE: u32 = 32;
/** The series' labels are all in its leading fields, and it has no exemplars. */
export const KEYED: u32 = 1;

const TS_LABELS: u32 = (1 << 3) | 2;
const TS_SAMPLES: u32 = (2 << 3) | 2;
const TS_HISTOGRAMS: u32 = (4 << 3) | 2;

let pos: usize = 0;

/** Reads a varint at `pos` (up to `end`) as u64; sets pos to 0 on a malformed one. */
function varint(end: usize): u64 {
  let v: u64 = 0;
  let shift: u64 = 0;
  while (pos < end && shift < 64) {
    const b = load<u8>(pos++);
    v |= (<u64>(b & 0x7f)) << shift;
    if (b < 0x80) return v;
    shift += 7;
  }
  pos = 0;
  return 0;
}

/** Skips a field of wire type `wt` at `pos`; false when it cannot (groups, past `end`, malformed). */
function skip(wt: u32, end: usize): bool {
  if (wt == 0) {
    varint(end);
    return pos != 0;
  }
  if (wt == 1) {
    pos += 8;
    return pos <= end;
  }
  if (wt == 5) {
    pos += 4;
    return pos <= end;
  }
  if (wt == 2) {
    const n = varint(end);
    if (pos == 0 || n > <u64>(end - pos)) return false;
    pos += <usize>n;
    return true;
  }
  return false;
}

/**
 * Walks the WriteRequest of `len` bytes at `req` and writes one KEY_SIZE
 * record per TimeSeries at `out` (room for `cap`). Returns the number of
 * TimeSeries, or -1 when the message is malformed or has more than `cap`
 * (the caller then reads it without keys, and its parser names the fault).
 */
export function seriesKeys(req: usize, len: u32, out: usize, cap: u32, seedA: u64, seedB: u64): i32 {
  const end = req + <usize>len;
  pos = req;
  let n: u32 = 0;
  while (pos < end) {
    const tag = <u32>varint(end);
    if (pos == 0) return -1;
    if (tag != TS_LABELS) {
      if (!skip(tag & 7, end)) return -1;
      continue;
    }
    const size = varint(end);
    if (pos == 0 || size > <u64>(end - pos)) return -1;
    if (n == cap) return -1;
    const start = pos;
    const stop = pos + <usize>size;
    const rec = out + <usize>n * KEY_SIZE;
    if (!series(start, stop, rec, seedA, seedB)) return -1;
    pos = stop;
    n++;
  }
  return <i32>n;
}

/** One TimeSeries at [start, stop): its record at `rec`. False when malformed. */
function series(start: usize, stop: usize, rec: usize, seedA: u64, seedB: u64): bool {
  pos = start;
  let labelsEnd = start;
  let leading = true;
  let keyed = true;
  while (pos < stop) {
    const tag = <u32>varint(stop);
    if (pos == 0) return false;
    const field = tag >>> 3;
    if (tag == TS_LABELS) {
      if (!leading) keyed = false;
    } else {
      leading = false;
      // Exemplars take the full reading; so does a known field with
      // another wire type (the parser refuses it). Histograms are read
      // under the series' ref as samples are.
      if (field >= 1 && field <= 4 && tag != TS_SAMPLES && tag != TS_HISTOGRAMS) keyed = false;
    }
    if (!skip(tag & 7, stop)) return false;
    if (leading) labelsEnd = pos;
  }
  if (labelsEnd == start) keyed = false;
  store<u32>(rec + K_START, <u32>start);
  store<u32>(rec + K_END, <u32>stop);
  store<u32>(rec + K_LABELS, <u32>labelsEnd);
  store<u32>(rec + K_FLAGS, keyed ? KEYED : 0);
  const n = <u32>(labelsEnd - start);
  store<u64>(rec + K_A, keyed ? xxh64(start, n, seedA) : 0);
  store<u64>(rec + K_B, keyed ? xxh64(start, n, seedB) : 0);
  return true;
}

/**
 * The 128-bit key of `len` bytes at `ptr` under the two u64 seeds at
 * `seeds`: xxh64 with each, the two u64 written at `out` (which may be
 * `seeds`). Keys a series made from other bytes than its labels (an
 * OTLP point's attributes: src/ingest/parse/otlp-batch.ts), and chains:
 * a key used as the seeds of the next.
 */
export function keyBytes(ptr: usize, len: u32, seeds: usize, out: usize): void {
  const a = xxh64(ptr, len, load<u64>(seeds));
  const b = xxh64(ptr, len, load<u64>(seeds + 8));
  store<u64>(out, a);
  store<u64>(out + 8, b);
}
