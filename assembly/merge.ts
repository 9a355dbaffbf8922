// Sorted samples merged in module memory: a decoded chunk (i64 times) with
// samples the host keeps as columns (f64 times, exact integers within
// ±2^53), so that a read merging out-of-order samples into a chunk decodes,
// merges and encodes without a round trip through JS arrays (issue 26).
import { appenderBytes, appenderInit, appendSamples } from './xor';

/**
 * Merges `an` samples (i64 times at `aT`, u64 value bits at `aV`) with
 * `bn` samples (f64 times at `bT`, u64 value bits at `bV`), each sorted by
 * time with distinct times, into `outT` (i64) and `outV` (room for an + bn
 * each). A time in both keeps `a`'s sample. Returns the samples written.
 */
export function mergeSamples(aT: usize, aV: usize, an: u32, bT: usize, bV: usize, bn: u32, outT: usize, outV: usize): u32 {
  let i: u32 = 0;
  let j: u32 = 0;
  let n: u32 = 0;
  while (i < an && j < bn) {
    const ta = load<i64>(aT + (<usize>i << 3));
    const tb = <i64>load<f64>(bT + (<usize>j << 3));
    const o = <usize>n << 3;
    if (ta <= tb) {
      store<i64>(outT + o, ta);
      store<u64>(outV + o, load<u64>(aV + (<usize>i << 3)));
      i++;
      if (ta == tb) j++;
    } else {
      store<i64>(outT + o, tb);
      store<u64>(outV + o, load<u64>(bV + (<usize>j << 3)));
      j++;
    }
    n++;
  }
  for (; i < an; i++, n++) {
    store<i64>(outT + (<usize>n << 3), load<i64>(aT + (<usize>i << 3)));
    store<u64>(outV + (<usize>n << 3), load<u64>(aV + (<usize>i << 3)));
  }
  for (; j < bn; j++, n++) {
    store<i64>(outT + (<usize>n << 3), <i64>load<f64>(bT + (<usize>j << 3)));
    store<u64>(outV + (<usize>n << 3), load<u64>(bV + (<usize>j << 3)));
  }
  return n;
}

/** A merged chunk's record (mergeEncode): where its bytes are and its time bounds. */
export const MERGED_SIZE: u32 = 24;
export const M_OFF: u32 = 0; // u32 byte offset of the chunk in the output
export const M_LEN: u32 = 4; // u32 its length
export const M_MINT: u32 = 8; // i64 its first time
export const M_MAXT: u32 = 16; // i64 its last time

/**
 * mergeSamples, then the result encoded as XOR chunks of at most `per`
 * samples, one after another from `enc` (each chunk's room is `cap`
 * bytes, enough for `per` samples at their largest), with a MERGED_SIZE
 * record a chunk at `recs`. One call from the host per merge instead of
 * three a chunk (issue 26: a read merging late samples into 1,000 series
 * spent as much in the calls and their JS as in the encoding). Returns
 * the chunks written, or -1 if a chunk could not take its samples.
 */
export function mergeEncode(state: usize, aT: usize, aV: usize, an: u32, bT: usize, bV: usize, bn: u32, outT: usize, outV: usize, per: u32, enc: usize, cap: u32, recs: usize): i32 {
  const n = mergeSamples(aT, aV, an, bT, bV, bn, outT, outV);
  let off: u32 = 0;
  let c: u32 = 0;
  for (let p: u32 = 0; p < n; p += per, c++) {
    const k = min(per, n - p);
    const buf = enc + <usize>off;
    appenderInit(state, buf);
    if (appendSamples(state, buf, cap, outT + (<usize>p << 3), outV + (<usize>p << 3), k) != k) return -1;
    const len = appenderBytes(state);
    const r = recs + <usize>c * MERGED_SIZE;
    store<u32>(r + M_OFF, off);
    store<u32>(r + M_LEN, len);
    store<i64>(r + M_MINT, load<i64>(outT + (<usize>p << 3)));
    store<i64>(r + M_MAXT, load<i64>(outT + (<usize>(p + k - 1) << 3)));
    off += len;
  }
  return <i32>c;
}
