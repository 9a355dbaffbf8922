// Set algebra over postings: sorted, duplicate-free lists of u32 series ids
// in this module's memory. Pointers are byte offsets; lengths count ids.
// Every output buffer needs OUT_SLACK ids of writable room past its largest
// possible result (the SIMD paths store whole 16-byte vectors), and every
// input list needs none. Outputs never alias inputs.
//
// Several lists are passed as a descriptor table: `k` entries of u32
// pointer and length (LIST_DESC_*) at `desc`. The host may pass lists in any
// order; the functions below reorder the table in place.

/** Writable ids an output buffer needs past its largest result. */
export const OUT_SLACK: u32 = 4;

/** A descriptor table entry (byte offsets): the list's pointer and its length in ids, u32 each. */
export const LIST_DESC_PTR: u32 = 0;
export const LIST_DESC_LENGTH: u32 = 4;
export const LIST_DESC_SIZE: u32 = 8;
// The same as inlined constants, so that the code below compiles as with
// literals: an exported constant is a global the optimizer folds only late,
// and intersectMany then came out otherwise.
// @ts-ignore: decorator
@inline const D_PTR: usize = LIST_DESC_PTR;
// @ts-ignore: decorator
@inline const D_LENGTH: usize = LIST_DESC_LENGTH;
// @ts-ignore: decorator
@inline const D_SIZE: usize = LIST_DESC_SIZE;
/** An entry's index to its byte offset: D_SIZE is a power of two. */
// @ts-ignore: decorator
@inline const D_SHIFT: usize = <usize>ctz<usize>(D_SIZE);

/**
 * Size ratio from which intersection and subtraction gallop (exponential
 * then binary search in the longer list) instead of merging: a merge costs
 * |a| + |b| cheap steps (four at a time with SIMD), galloping about
 * |a| * 2 log2(|b| / |a|) dependent, branchy ones. 32 is the usual
 * crossover in the literature (Lemire et al., "SIMD compression and the
 * intersection of sorted integers"); bench/matcher.bench.ts has both sides.
 */
const GALLOP_RATIO: u32 = 32;

// Lane gather table for the SIMD intersection: for each 4-bit mask of
// matching lanes, the byte indices that move those lanes to the front.
// Filled once when the module starts.
const COMPACT: usize = memory.data(16 * 16, 16);
for (let mask = 0; mask < 16; mask++) {
  let o = 0;
  for (let lane = 0; lane < 4; lane++) {
    if ((mask >> lane) & 1) {
      for (let b = 0; b < 4; b++) store<u8>(COMPACT + (mask << 4) + o++, <u8>(lane * 4 + b));
    }
  }
  while (o < 16) store<u8>(COMPACT + (mask << 4) + o++, 0x80);
}

// Radix sort histograms: 4 passes x 256 buckets of u32.
const HIST: usize = memory.data(4 * 256 * 4, 16);

// @ts-ignore: decorator
@inline function at(p: usize, i: u32): u32 {
  return load<u32>(p + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline function put(p: usize, i: u32, v: u32): void {
  store<u32>(p + (<usize>i << 2), v);
}

// @ts-ignore: decorator
@inline function copyIds(dst: usize, src: usize, n: u32): void {
  memory.copy(dst, src, <usize>n << 2);
}

/** First index in [from, n) whose id is >= x (n if none), found by galloping from `from`. */
function gallop(p: usize, from: u32, n: u32, x: u32): u32 {
  if (from >= n || at(p, from) >= x) return from;
  // Invariant: at(lo) < x. Double the step until an id >= x or the end.
  let lo = from;
  let step: u32 = 1;
  let hi = lo + 1;
  while (hi < n && at(p, hi) < x) {
    lo = hi;
    step <<= 1;
    hi = lo + step;
  }
  if (hi > n) hi = n;
  // The answer lies in (lo, hi].
  let a = lo + 1;
  while (a < hi) {
    const m = (a + hi) >>> 1;
    if (at(p, m) < x) a = m + 1;
    else hi = m;
  }
  return a;
}

// ---------------------------------------------------------------------------
// Intersection.

/** a ∩ b where |a| << |b|: each id of a gallops forward through b. */
function intersectGallop(a: usize, na: u32, b: usize, nb: u32, out: usize): u32 {
  let j: u32 = 0;
  let k: u32 = 0;
  for (let i: u32 = 0; i < na; i++) {
    const x = at(a, i);
    j = gallop(b, j, nb, x);
    if (j == nb) break;
    if (at(b, j) == x) put(out, k++, x);
  }
  return k;
}

/**
 * Merge intersection from positions i, j. Branch-free: both cursors move
 * by comparison results and the candidate is always stored, so the loop
 * has no unpredictable branch on random data (one per id otherwise).
 */
function intersectMerge(a: usize, na: u32, b: usize, nb: u32, out: usize, i: u32, j: u32, k: u32): u32 {
  while (i < na && j < nb) {
    const x = at(a, i);
    const y = at(b, j);
    put(out, k, x);
    k += <u32>(x == y);
    i += <u32>(x <= y);
    j += <u32>(y <= x);
  }
  return k;
}

/**
 * a ∩ b for lists of similar size, four ids against four at a time: each
 * lane of a block of a is compared with all four rotations of a block of b
 * (4 compares instead of 16 scalar ones), the matching lanes are packed to
 * the front with one byte shuffle and stored as a whole vector, and the
 * block with the smaller last id advances. Ids are unique in each list, so
 * a lane matches at most once and nothing is counted twice.
 */
function intersectSimd(a: usize, na: u32, b: usize, nb: u32, out: usize): u32 {
  const na4 = na & ~3;
  const nb4 = nb & ~3;
  let i: u32 = 0;
  let j: u32 = 0;
  let k: u32 = 0;
  if (na4 > 0 && nb4 > 0) {
    let va = v128.load(a);
    let vb = v128.load(b);
    while (true) {
      const r1 = i32x4.shuffle(vb, vb, 1, 2, 3, 0);
      const r2 = i32x4.shuffle(vb, vb, 2, 3, 0, 1);
      const r3 = i32x4.shuffle(vb, vb, 3, 0, 1, 2);
      const hit = v128.or(
        v128.or(i32x4.eq(va, vb), i32x4.eq(va, r1)),
        v128.or(i32x4.eq(va, r2), i32x4.eq(va, r3)),
      );
      const mask = i32x4.bitmask(hit);
      v128.store(out + (<usize>k << 2), i8x16.swizzle(va, v128.load(COMPACT + (<usize>mask << 4))));
      k += <u32>popcnt<i32>(mask);
      const amax = at(a, i + 3);
      const bmax = at(b, j + 3);
      if (amax <= bmax) {
        i += 4;
        if (i == na4) break;
        va = v128.load(a + (<usize>i << 2));
      }
      if (bmax <= amax) {
        j += 4;
        if (j == nb4) break;
        vb = v128.load(b + (<usize>j << 2));
      }
    }
  }
  // The tails (fewer than four ids in one list) merge one id at a time.
  return intersectMerge(a, na, b, nb, out, i, j, k);
}

/** Writes a ∩ b to `out` (room for min(na, nb) + OUT_SLACK ids) and returns its length. */
export function intersect2(a: usize, na: u32, b: usize, nb: u32, out: usize): u32 {
  if (na > nb) return intersect2(b, nb, a, na, out);
  if (na == 0) return 0;
  // Disjoint ranges are common (old and new series): answer without a pass.
  if (at(a, na - 1) < at(b, 0) || at(b, nb - 1) < at(a, 0)) return 0;
  if (nb / na >= GALLOP_RATIO) return intersectGallop(a, na, b, nb, out);
  return intersectSimd(a, na, b, nb, out);
}

/**
 * Sorts a descriptor table by list length, shortest first (k is small:
 * insertion sort). An entry (8 bytes) moves as one u64, whose bits from
 * byte D_LENGTH on (little-endian) are the length.
 */
function sortByLength(desc: usize, k: u32): void {
  for (let i: u32 = 1; i < k; i++) {
    const p = load<u64>(desc + (<usize>i << D_SHIFT));
    const n = <u32>(p >>> (<u64>D_LENGTH << 3));
    let j = i;
    while (j > 0 && <u32>(load<u64>(desc + (<usize>(j - 1) << D_SHIFT)) >>> (<u64>D_LENGTH << 3)) > n) {
      store<u64>(desc + (<usize>j << D_SHIFT), load<u64>(desc + (<usize>(j - 1) << D_SHIFT)));
      j--;
    }
    store<u64>(desc + (<usize>j << D_SHIFT), p);
  }
}

/**
 * Intersects the `k` lists of the descriptor table, shortest first so every
 * step is bounded by the smallest list, stopping as soon as it is empty.
 * `out` and `scratch` each need room for the shortest list + OUT_SLACK.
 * Returns the length of the result, which is in `out`.
 */
export function intersectMany(desc: usize, k: u32, out: usize, scratch: usize): u32 {
  if (k == 0) return 0;
  sortByLength(desc, k);
  let src: usize = load<u32>(desc, D_PTR);
  let n = load<u32>(desc, D_LENGTH);
  if (k == 1) {
    copyIds(out, src, n);
    return n;
  }
  // Ping-pong between the two buffers so that the last step writes `out`.
  let dst = (k & 1) == 0 ? out : scratch;
  for (let i: u32 = 1; i < k && n > 0; i++) {
    const d = desc + (<usize>i << D_SHIFT);
    n = intersect2(src, n, <usize>load<u32>(d, D_PTR), load<u32>(d, D_LENGTH), dst);
    src = dst;
    dst = dst == out ? scratch : out;
  }
  if (src != out) copyIds(out, src, n);
  return n;
}

// ---------------------------------------------------------------------------
// Union.

/** a ∪ b, branch-free merge: the smaller head is stored, equal heads advance together. */
export function union2(a: usize, na: u32, b: usize, nb: u32, out: usize): u32 {
  let i: u32 = 0;
  let j: u32 = 0;
  let k: u32 = 0;
  while (i < na && j < nb) {
    const x = at(a, i);
    const y = at(b, j);
    put(out, k++, select<u32>(x, y, x <= y));
    i += <u32>(x <= y);
    j += <u32>(y <= x);
  }
  copyIds(out + (<usize>k << 2), a + (<usize>i << 2), na - i);
  k += na - i;
  copyIds(out + (<usize>k << 2), b + (<usize>j << 2), nb - j);
  return k + nb - j;
}

/**
 * Bitmap words per id a union may spend before it sorts instead. Setting a
 * bit and scanning a word both cost about as much as one step of a sort,
 * and the scan skips empty 128-bit blocks, so a bitmap up to a few words
 * per id is still cheaper than sorting.
 */
const BITMAP_WORDS_PER_ID: u64 = 4;

/** Bitmap words (rounded up to whole vectors) covering [lo, hi]. */
// @ts-ignore: decorator
@inline function bitmapWords(lo: u32, hi: u32): u32 {
  return (((hi - lo) >>> 5) + 4) & ~3;
}

/** Totals over a descriptor table: [ids, lowest id, highest id] in the globals below. */
let gTotal: u64 = 0;
let gLo: u32 = 0;
let gHi: u32 = 0;

function survey(desc: usize, k: u32): void {
  let total: u64 = 0;
  let lo: u32 = u32.MAX_VALUE;
  let hi: u32 = 0;
  for (let i: u32 = 0; i < k; i++) {
    const p = load<u32>(desc + (<usize>i << D_SHIFT), D_PTR);
    const n = load<u32>(desc + (<usize>i << D_SHIFT), D_LENGTH);
    if (n == 0) continue;
    total += n;
    lo = min(lo, at(p, 0));
    hi = max(hi, at(p, n - 1));
  }
  gTotal = total;
  gLo = lo;
  gHi = hi;
}

// @ts-ignore: decorator
@inline function useBitmap(k: u32): bool {
  return k > 2 && gTotal > 0 && <u64>bitmapWords(gLo, gHi) <= gTotal * BITMAP_WORDS_PER_ID;
}

/**
 * Scratch bytes `unionMany` needs for this descriptor table: a bitmap over
 * the id range when the ids are dense, else room to radix sort them.
 */
export function unionScratchBytes(desc: usize, k: u32): u32 {
  if (k <= 2) return 0;
  survey(desc, k);
  if (useBitmap(k)) return bitmapWords(gLo, gHi) << 2;
  return <u32>((gTotal + <u64>OUT_SLACK) << 2);
}

/**
 * Writes the union of the `k` lists of the descriptor table to `out` (room
 * for the sum of their lengths + OUT_SLACK) and returns its length.
 * `scratch` holds `unionScratchBytes(desc, k)` bytes.
 *
 * Two lists merge. More lists either set bits in a bitmap over the id range
 * and read them back in order (linear in ids plus range, and series ids
 * are dense: the head hands them out in order), or, when the ids are
 * sparse, are concatenated, radix sorted and deduplicated. A k-way heap
 * merge would cost log2(k) comparisons per id, many unpredictable.
 */
export function unionMany(desc: usize, k: u32, out: usize, scratch: usize): u32 {
  if (k == 0) return 0;
  if (k == 1) {
    const n = load<u32>(desc, D_LENGTH);
    copyIds(out, load<u32>(desc, D_PTR), n);
    return n;
  }
  if (k == 2) {
    return union2(
      load<u32>(desc, D_PTR), load<u32>(desc, D_LENGTH),
      load<u32>(desc + D_SIZE, D_PTR), load<u32>(desc + D_SIZE, D_LENGTH), out,
    );
  }
  survey(desc, k);
  if (gTotal == 0) return 0;
  if (useBitmap(k)) return unionBitmap(desc, k, out, scratch, gLo, bitmapWords(gLo, gHi));
  return unionSort(desc, k, out, scratch);
}

function unionBitmap(desc: usize, k: u32, out: usize, bits: usize, lo: u32, words: u32): u32 {
  memory.fill(bits, 0, <usize>words << 2);
  for (let i: u32 = 0; i < k; i++) {
    const p = load<u32>(desc + (<usize>i << D_SHIFT), D_PTR);
    const n = load<u32>(desc + (<usize>i << D_SHIFT), D_LENGTH);
    for (let j: u32 = 0; j < n; j++) {
      const d = at(p, j) - lo;
      const w = bits + (<usize>(d >>> 5) << 2);
      store<u32>(w, load<u32>(w) | (<u32>1 << (d & 31)));
    }
  }
  let c: u32 = 0;
  for (let w: u32 = 0; w < words; w += 4) {
    // Skip four empty words with one test.
    if (!v128.any_true(v128.load(bits + (<usize>w << 2)))) continue;
    for (let q: u32 = w; q < w + 4; q++) {
      let x = at(bits, q);
      const base = lo + (q << 5);
      while (x != 0) {
        put(out, c++, base + <u32>ctz<u32>(x));
        x &= x - 1;
      }
    }
  }
  return c;
}

/** Concatenates the lists into `out`, radix sorts them (LSD, 8 bits a pass) and drops duplicates. */
function unionSort(desc: usize, k: u32, out: usize, tmp: usize): u32 {
  let n: u32 = 0;
  for (let i: u32 = 0; i < k; i++) {
    const m = load<u32>(desc + (<usize>i << D_SHIFT), D_LENGTH);
    copyIds(out + (<usize>n << 2), load<u32>(desc + (<usize>i << D_SHIFT), D_PTR), m);
    n += m;
  }
  radixSort(out, tmp, n);
  let c: u32 = 1;
  for (let i: u32 = 1; i < n; i++) {
    const x = at(out, i);
    put(out, c, x);
    c += <u32>(x != at(out, c - 1));
  }
  return c;
}

/** Sorts `n` ids at `a` using `tmp` (same size); the result is in `a`. */
function radixSort(a: usize, tmp: usize, n: u32): void {
  memory.fill(HIST, 0, 4 * 256 * 4);
  for (let i: u32 = 0; i < n; i++) {
    const x = at(a, i);
    for (let pass: u32 = 0; pass < 4; pass++) {
      const h = HIST + (<usize>((pass << 8) | ((x >>> (pass << 3)) & 0xff)) << 2);
      store<u32>(h, load<u32>(h) + 1);
    }
  }
  let src = a;
  let dst = tmp;
  for (let pass: u32 = 0; pass < 4; pass++) {
    const hist = HIST + (<usize>(pass << 8) << 2);
    const shift = pass << 3;
    // A pass where every id has the same byte changes nothing: skip it
    // (the high bytes of ids from one head are usually constant).
    if (load<u32>(hist + (<usize>((at(src, 0) >>> shift) & 0xff) << 2)) == n) continue;
    let sum: u32 = 0;
    for (let b: u32 = 0; b < 256; b++) {
      const c = at(hist, b);
      put(hist, b, sum);
      sum += c;
    }
    for (let i: u32 = 0; i < n; i++) {
      const x = at(src, i);
      const h = hist + (<usize>((x >>> shift) & 0xff) << 2);
      const pos = load<u32>(h);
      store<u32>(h, pos + 1);
      put(dst, pos, x);
    }
    const t = src;
    src = dst;
    dst = t;
  }
  if (src != a) copyIds(a, src, n);
}

// ---------------------------------------------------------------------------
// Subtraction.

/** a \ b from positions i, j: branch-free merge, then the rest of a. */
function subtractMerge(a: usize, na: u32, b: usize, nb: u32, out: usize, i: u32, j: u32, k: u32): u32 {
  while (i < na && j < nb) {
    const x = at(a, i);
    const y = at(b, j);
    put(out, k, x);
    k += <u32>(x < y);
    i += <u32>(x <= y);
    j += <u32>(y <= x);
  }
  copyIds(out + (<usize>k << 2), a + (<usize>i << 2), na - i);
  return k + na - i;
}

/**
 * a \ b for lists of similar size, shaped like intersectSimd: a block of a
 * collects, over the blocks of b it meets, which of its lanes were found;
 * when it advances (its last id <= the b block's last id, so no later b
 * block can hold its ids) the lanes never found are packed and stored.
 */
function subtractSimd(a: usize, na: u32, b: usize, nb: u32, out: usize): u32 {
  const na4 = na & ~3;
  const nb4 = nb & ~3;
  let i: u32 = 0;
  let j: u32 = 0;
  let k: u32 = 0;
  if (na4 == 0 || nb4 == 0) return subtractMerge(a, na, b, nb, out, 0, 0, 0);
  let va = v128.load(a);
  let vb = v128.load(b);
  let found: i32 = 0;
  while (true) {
    const r1 = i32x4.shuffle(vb, vb, 1, 2, 3, 0);
    const r2 = i32x4.shuffle(vb, vb, 2, 3, 0, 1);
    const r3 = i32x4.shuffle(vb, vb, 3, 0, 1, 2);
    found |= i32x4.bitmask(v128.or(
      v128.or(i32x4.eq(va, vb), i32x4.eq(va, r1)),
      v128.or(i32x4.eq(va, r2), i32x4.eq(va, r3)),
    ));
    const amax = at(a, i + 3);
    const bmax = at(b, j + 3);
    if (amax <= bmax) {
      const keep = ~found & 15;
      v128.store(out + (<usize>k << 2), i8x16.swizzle(va, v128.load(COMPACT + (<usize>keep << 4))));
      k += <u32>popcnt<i32>(keep);
      found = 0;
      i += 4;
      if (i == na4) return subtractMerge(a, na, b, nb, out, i, j, k);
      va = v128.load(a + (<usize>i << 2));
    }
    if (bmax <= amax) {
      j += 4;
      if (j == nb4) break;
      vb = v128.load(b + (<usize>j << 2));
    }
  }
  // b's whole blocks are done; the pending block of a may still meet b's
  // last (fewer than four) ids: check its unfound lanes one by one.
  for (let l: u32 = 0; l < 4; l++) {
    if ((found >> l) & 1) continue;
    const x = at(a, i + l);
    let hit = false;
    for (let t = j; t < nb; t++) hit = hit || at(b, t) == x;
    if (!hit) put(out, k++, x);
  }
  return subtractMerge(a, na, b, nb, out, i + 4, j, k);
}

/**
 * Writes a \ b to `out` (room for na + OUT_SLACK ids) and returns its
 * length. When b is much shorter, whole runs of a between ids of b are
 * copied with memory.copy; when a is much shorter, each id of a gallops
 * through b; otherwise four ids against four at a time.
 */
export function subtract(a: usize, na: u32, b: usize, nb: u32, out: usize): u32 {
  if (na == 0) return 0;
  if (nb == 0 || at(a, na - 1) < at(b, 0) || at(b, nb - 1) < at(a, 0)) {
    copyIds(out, a, na);
    return na;
  }
  let i: u32 = 0;
  let k: u32 = 0;
  if (na / nb >= GALLOP_RATIO) {
    for (let j: u32 = 0; j < nb; j++) {
      const y = at(b, j);
      const p = gallop(a, i, na, y);
      copyIds(out + (<usize>k << 2), a + (<usize>i << 2), p - i);
      k += p - i;
      i = p;
      if (i == na) break;
      i += <u32>(at(a, i) == y);
    }
    copyIds(out + (<usize>k << 2), a + (<usize>i << 2), na - i);
    return k + na - i;
  }
  if (nb / na >= GALLOP_RATIO) {
    let j: u32 = 0;
    for (; i < na; i++) {
      const x = at(a, i);
      j = gallop(b, j, nb, x);
      if (j == nb) break;
      if (at(b, j) != x) put(out, k++, x);
    }
    copyIds(out + (<usize>k << 2), a + (<usize>i << 2), na - i);
    return k + na - i;
  }
  return subtractSimd(a, na, b, nb, out);
}
