// Sorted samples merged in module memory: a decoded chunk (i64 times) with
// samples the host keeps as columns (f64 times, exact integers within
// ±2^53), so that a read merging out-of-order samples into a chunk decodes,
// merges and encodes without a round trip through JS arrays (issue 26).

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
