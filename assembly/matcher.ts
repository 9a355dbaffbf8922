// Label value matching over a whole value dictionary in one call: the
// UTF-8 bytes of every value of one label name back to back, with n + 1
// u32 offsets (value i is bytes [offs[i], offs[i + 1])). The dictionary
// needs DICT_SLACK readable bytes after its last value: the SIMD loops
// load whole 16-byte vectors and mask off what lies past a value.
//
// A program is a fully anchored alternation of terms, each
//   [lead] literal [trail]     lead, trail: none, `.*` or `.+`
// which covers literals, literal alternations, prefixes, suffixes and
// "contains". src/index/regex-shape.ts recognises these patterns and
// src/index/scan-program.ts writes the program (its flags and term kinds:
// src/wasm/layout.ts); anything else is matched by the RE2 engine on the
// host. `.` never matches a newline (Prometheus 2.x), so a value holding a
// newline can match only terms without wildcards (literals of wildcard
// terms have no newline: the recogniser leaves those to the RE2 engine).
//
// Program layout (u32 words, offsets PROG_* below): flags, term count, then
// per term (PROG_TERM_*): shape (lead | trail << PROG_TRAIL_SHIFT), literal
// offset (bytes from the program's start), literal length; the literals
// follow, then PROG_SLACK bytes of padding. A program is position independent.

export {
  OUT_SLACK, LIST_DESC_PTR, LIST_DESC_LENGTH, LIST_DESC_SIZE,
  intersect2, intersectMany, union2, unionMany, unionScratchBytes, subtract,
} from './postings';

/** Readable bytes needed past the last value of a dictionary. */
export const DICT_SLACK: u32 = 16;

/** A program's header (byte offsets): flags, term count, then the terms. */
export const PROG_FLAGS: u32 = 0;
export const PROG_TERM_COUNT: u32 = 4;
export const PROG_TERMS: u32 = 8;
/** A term (byte offsets): shape, literal offset from the program's start, literal length. */
export const PROG_TERM_SHAPE: u32 = 0;
export const PROG_TERM_LITERAL_AT: u32 = 4;
export const PROG_TERM_LITERAL_LENGTH: u32 = 8;
export const PROG_TERM_SIZE: u32 = 12;
/** A term's shape: lead | trail << PROG_TRAIL_SHIFT. */
export const PROG_TRAIL_SHIFT: u32 = 2;

/** Readable bytes needed past a program's last literal. */
export const PROG_SLACK: u32 = 16;

/** Flag: compare ASCII letters case-insensitively (literals are stored lower case). */
export const PROG_FOLD: u32 = 1;
/**
 * Flag: a value with a non-ASCII byte is undecided. Go's (?i) folds `k` with
 * U+212A KELVIN SIGN and `s` with U+017F LONG S; values that could hold
 * them go to the RE2 engine instead of being folded here.
 */
export const PROG_UNSURE_NON_ASCII: u32 = 2;

/** Lead and trail kinds of a term. */
export const ANY_NONE: u32 = 0;
export const ANY_STAR: u32 = 1;
export const ANY_PLUS: u32 = 2;

/** Set on an output index when the value is undecided and the host must match it. */
export const UNSURE: u32 = 0x80000000;

// @ts-ignore: decorator
@inline function fold(c: u32): u32 {
  return c - 65 < 26 ? c | 0x20 : c;
}

// @ts-ignore: decorator
@inline function foldVec(v: v128): v128 {
  const upper = i8x16.lt_u(i8x16.sub(v, i8x16.splat(65)), i8x16.splat(26));
  return v128.or(v, v128.and(upper, i8x16.splat(0x20)));
}

/** Bit mask of the first `n` (0..16) lanes. */
// @ts-ignore: decorator
@inline function lanes(n: usize): u32 {
  return n >= 16 ? 0xffff : (<u32>1 << <u32>n) - 1;
}

/**
 * Whether bytes [p, p + n) equal the literal `q` (ASCII-folded when `ci`),
 * 16 bytes per step: one compare and one mask test instead of a byte loop
 * (label values are mostly 10-60 bytes). Reads up to 15 bytes past both
 * ends, which the dictionary's and the program's slack cover.
 */
// @ts-ignore: decorator
@inline function equal(p: usize, q: usize, n: usize, ci: bool): bool {
  for (let i: usize = 0; i < n; i += 16) {
    let a = v128.load(p + i);
    if (ci) a = foldVec(a);
    const want = lanes(n - i);
    if ((<u32>i8x16.bitmask(i8x16.eq(a, v128.load(q + i))) & want) != want) return false;
  }
  return true;
}

/** Whether bytes [p, p + n) hold `c` (n may be large: 16 bytes per step). */
function holdsByte(p: usize, n: usize, c: u8): bool {
  const needle = i8x16.splat(c);
  for (let i: usize = 0; i < n; i += 16) {
    const m = <u32>i8x16.bitmask(i8x16.eq(v128.load(p + i), needle)) & lanes(n - i);
    if (m != 0) return true;
  }
  return false;
}

/** Whether bytes [p, p + n) hold a byte >= 0x80 (its sign bit is the vector's bitmask). */
function holdsNonAscii(p: usize, n: usize): bool {
  for (let i: usize = 0; i < n; i += 16) {
    if ((<u32>i8x16.bitmask(v128.load(p + i)) & lanes(n - i)) != 0) return true;
  }
  return false;
}

/**
 * Whether the literal (lit, m >= 1 bytes) occurs in [p, p + n). Compares the
 * literal's first and last bytes with 16 candidate positions at once (two
 * vector compares and an AND) and checks the middle only where both agree,
 * which on real values is almost never: a scan of ~1/16 step per byte.
 */
function contains(p: usize, n: usize, lit: usize, m: usize, ci: bool): bool {
  if (m > n) return false;
  const first = i8x16.splat(load<u8>(lit));
  const last = i8x16.splat(load<u8>(lit + m - 1));
  const positions = n - m + 1;
  for (let i: usize = 0; i < positions; i += 16) {
    let a = v128.load(p + i);
    let b = v128.load(p + i + m - 1);
    if (ci) {
      a = foldVec(a);
      b = foldVec(b);
    }
    let hits = <u32>i8x16.bitmask(v128.and(i8x16.eq(a, first), i8x16.eq(b, last))) & lanes(positions - i);
    while (hits != 0) {
      const at = i + <usize>ctz<u32>(hits);
      if (m <= 2 || equal(p + at + 1, lit + 1, m - 2, ci)) return true;
      hits &= hits - 1;
    }
  }
  return false;
}

/** Whether value bytes [p, p + n) match one term (the value holds no newline if the term has wildcards). */
// @ts-ignore: decorator
@inline function matchTerm(p: usize, n: usize, shape: u32, lit: usize, m: usize, ci: bool): bool {
  const lead = shape & ((1 << PROG_TRAIL_SHIFT) - 1);
  const trail = shape >>> PROG_TRAIL_SHIFT;
  // Characters the wildcards must at least cover (one for each `.+`).
  const skipHead = <usize>(lead == ANY_PLUS);
  const skipTail = <usize>(trail == ANY_PLUS);
  if (n < m + skipHead + skipTail) return false;
  if (lead == ANY_NONE) {
    if (trail == ANY_NONE && n != m) return false;
    return equal(p, lit, m, ci);
  }
  if (trail == ANY_NONE) return equal(p + n - m, lit, m, ci);
  if (m == 0) return true;
  return contains(p + skipHead, n - skipHead - skipTail, lit, m, ci);
}

/**
 * Matches the `n` values of a dictionary (bytes at `dict`, offsets at `offs`)
 * against the program at `prog`. Writes to `out` (room for n ids) the index
 * of every value whose match result equals `want` (1 matched, 0 not), and of
 * every undecided value with UNSURE set; returns how many it wrote.
 */
export function matchValues(dict: usize, offs: usize, n: u32, prog: usize, want: u32, out: usize): u32 {
  const flags = load<u32>(prog + PROG_FLAGS);
  const terms = load<u32>(prog + PROG_TERM_COUNT);
  const ci = (flags & PROG_FOLD) != 0;
  const unsureNonAscii = (flags & PROG_UNSURE_NON_ASCII) != 0;
  let wild = false;
  for (let t: u32 = 0; t < terms; t++) wild = wild || load<u32>(prog + PROG_TERMS + t * PROG_TERM_SIZE + PROG_TERM_SHAPE) != 0;
  // One pass over the whole dictionary: usually no value holds a newline,
  // and then no value needs its own check.
  const end = load<u32>(offs + (<usize>n << 2));
  const start = load<u32>(offs);
  const newlines = wild && holdsByte(dict + start, end - start, 0x0a);
  let k: u32 = 0;
  for (let v: u32 = 0; v < n; v++) {
    const p = dict + <usize>load<u32>(offs + (<usize>v << 2));
    const len = <usize>(load<u32>(offs + (<usize>(v + 1) << 2))) - (p - dict);
    if (unsureNonAscii && holdsNonAscii(p, len)) {
      store<u32>(out + (<usize>k << 2), v | UNSURE);
      k++;
      continue;
    }
    const plain = !newlines || !holdsByte(p, len, 0x0a);
    let hit = false;
    for (let t: u32 = 0; t < terms && !hit; t++) {
      const term = prog + PROG_TERMS + t * PROG_TERM_SIZE;
      const shape = load<u32>(term + PROG_TERM_SHAPE);
      if (shape != 0 && !plain) continue;
      hit = matchTerm(p, len, shape, prog + <usize>load<u32>(term + PROG_TERM_LITERAL_AT), <usize>load<u32>(term + PROG_TERM_LITERAL_LENGTH), ci);
    }
    if (<u32>hit == want) {
      store<u32>(out + (<usize>k << 2), v);
      k++;
    }
  }
  return k;
}
