// The native histogram chunks of Prometheus 2.42 (chunk encodings 2,
// HISTOGRAM, and 3, FLOAT_HISTOGRAM), byte for byte.
// Format: docs/format/histogram-chunks.md. The host (src/chunkenc/histogram/wasm-*.ts)
// keeps the chunk, the appender state and the per-bucket state; a call gets
// them in module memory, appends or decodes a batch of samples, and leaves
// them there for the host to keep. The layouts below are exported, mirrored
// in src/wasm/layout.ts and checked by the host when it instantiates the module.
import {
  NO_WINDOW, STALE_NAN, XF_BITS, XF_LEADING, XF_TRAILING,
  getBits, getVarbitInt, getVarbitUint, getXor, putBits, putVarbitInt, putVarbitUint, putXor,
  rAt, rBegin, rErr, rLeft, wBegin, wEnd, wOffset, wPad,
} from './varbit';

/** Bits before the first sample: a 16-bit sample count and the counter-reset header byte. */
const HEADER_BITS: u32 = 24;
const CUSTOM_BUCKETS_SCHEMA: i32 = -53;

// State of an appender or a decoder (bytes). XOR fields are 16 bytes:
// bits, then leading and trailing zeros of the window (see varbit.ts).
const S_POS = 0; //        u32 next bit (appender: bits written, header included)
const S_COUNT = 4; //      u32 appender: samples written; decoder: samples in the chunk
const S_NUM_POS = 8; //    u32 positive buckets of the layout
const S_NUM_NEG = 12; //   u32 negative buckets of the layout
const S_PAD = 16; //       u32 appender: 1 when the chunk ends in Go's spare zero byte
const S_INDEX = 20; //     u32 decoder: samples read; appender: 1 when the last sample was stale
const S_T = 24; //         i64 last timestamp
const S_TDELTA = 32; //    i64 last timestamp delta
const S_CNT = 40; //       XOR field; integer chunks keep the count (u64) in its bits
const S_ZCNT = 56; //      XOR field; integer chunks keep the zero count (u64) in its bits
const S_SUM = 72; //       XOR field of the sum
const S_CNT_DELTA = 88; // i64 integer chunks: last count delta
const S_ZCNT_DELTA = 96; //i64 integer chunks: last zero count delta
const S_HEADER = 104; //   u32 decoder: counter-reset header (0..3)
const S_SCHEMA = 108; //   i32 decoder: schema
const S_ZT = 112; //       u64 decoder: zero threshold bits
const S_POS_SPANS = 120; //u32 decoder: positive spans
const S_NEG_SPANS = 124; //u32 decoder: negative spans
const S_SPANS_AT = 128; // u32 decoder: bit position of the positive span count
const S_ERR = 132; //      i32 decoder: sticky error
export const HIST_STATE_SIZE: u32 = 136;
/** Per-bucket state: integer chunks i64 value + i64 delta; float chunks an XOR field. */
export const HIST_BUCKET_STATE_SIZE: u32 = 16;
/**
 * Sample record, appender input and decoder output (byte offsets): t i64,
 * count, zero count (float64 numbers in integer chunks, bits in float
 * ones), sum (float64 bits); then HIST_SAMPLE_BUCKET_BYTES a bucket,
 * positive ones first, unless the sum is STALE_NAN (decoder output).
 */
export const HIST_SAMPLE_T: u32 = 0;
export const HIST_SAMPLE_COUNT: u32 = 8;
export const HIST_SAMPLE_ZERO_COUNT: u32 = 16;
export const HIST_SAMPLE_SUM: u32 = 24;
export const HIST_SAMPLE_FIXED: u32 = 32;
export const HIST_SAMPLE_BUCKET_BYTES: u32 = 8;
/** Layout input (byte offsets): schema i32, zero threshold bits u64, then the spans, positive ones first. */
export const HIST_LAYOUT_SCHEMA: u32 = 0;
export const HIST_LAYOUT_ZERO_THRESHOLD: u32 = 8;
export const HIST_LAYOUT_SPANS: u32 = 16;
/** A span of layout input and of histDecodeSpans' output: offset i32, length u32. */
export const HIST_SPAN_OFFSET: u32 = 0;
export const HIST_SPAN_LENGTH: u32 = 4;
export const HIST_SPAN_SIZE: u32 = 8;
/** Worst case bytes of one sample's fixed fields (timestamp, counts, sum), and of one bucket. */
export const HIST_MAX_FIXED_BYTES: u32 = 40;
export const HIST_MAX_BUCKET_BYTES: u32 = 10;
/** Readable and writable slack the module needs after a chunk. */
export const HIST_SLACK_BYTES: u32 = 8;

/**
 * Outcomes; negative values are errors (with varbit.ts' ERR_TRUNCATED and
 * ERR_BAD_WINDOW), exported as HIST_ERR_* (index.ts).
 */
export const ERR_TOO_SHORT: i32 = -1;
export const ERR_TRAILING: i32 = -4;
export const ERR_TOO_MANY: i32 = -5;
export const ERR_BAD_LAYOUT: i32 = -6;
export const ERR_SCHEMA: i32 = -7;
/** Appender: sample `-(result) - ENCODE_BAD_INT` has a count or bucket that is not a safe integer. */
export const HIST_ENCODE_BAD_INT: i32 = 1 << 20;

// ---------------------------------------------------------------------------
// Appending.

function initXorField(f: usize, window: u32): void {
  store<u64>(f + XF_BITS, 0);
  store<u32>(f + XF_LEADING, window);
  store<u32>(f + XF_TRAILING, 0);
}

/** Starts an empty chunk: 3 zero header bytes, XOR windows unopened. */
export function histAppenderInit(state: usize, buf: usize): void {
  memory.fill(state, 0, HIST_STATE_SIZE);
  store<u32>(state + S_POS, HEADER_BITS);
  initXorField(state + S_CNT, NO_WINDOW);
  initXorField(state + S_ZCNT, NO_WINDOW);
  initXorField(state + S_SUM, NO_WINDOW);
  store<u32>(buf, 0);
}

/**
 * Writes the layout (writeHistogramChunkLayout) of an empty chunk: what its
 * first sample dictates. `layout` holds the schema, the zero threshold bits
 * and `nPos` + `nNeg` spans (HIST_LAYOUT_SPANS). Sets the bucket counts.
 */
export function histWriteLayout(state: usize, buf: usize, layout: usize, nPos: u32, nNeg: u32): void {
  wBegin(buf, load<u32>(state + S_POS));
  // putZeroThreshold: 0, or a power of two 2^-243..2^10 as one byte, else 255 + 64 bits.
  const zt = load<u64>(layout + HIST_LAYOUT_ZERO_THRESHOLD);
  const exponent = <i32>((zt >>> 52) & 0x7ff) - 1023;
  if ((zt << 1) == 0) {
    putBits(0, 8); // 0 and -0, as Go's `threshold == 0`
  } else if ((zt >>> 63) == 0 && (zt & 0xfffffffffffff) == 0 && exponent >= -243 && exponent <= 10) {
    putBits(<u64>(exponent + 244), 8);
  } else {
    putBits(255, 8);
    putBits(zt, 64);
  }
  putVarbitInt(<i64>load<i32>(layout + HIST_LAYOUT_SCHEMA));
  let spans = layout + HIST_LAYOUT_SPANS;
  for (let side = 0; side < 2; side++) {
    const n = side == 0 ? nPos : nNeg;
    let buckets: u32 = 0;
    putVarbitUint(<u64>n);
    for (let i: u32 = 0; i < n; i++) {
      const length = load<u32>(spans + HIST_SPAN_LENGTH);
      putVarbitUint(<u64>length);
      putVarbitInt(<i64>load<i32>(spans + HIST_SPAN_OFFSET));
      buckets += length;
      spans += HIST_SPAN_SIZE;
    }
    store<u32>(state + (side == 0 ? S_NUM_POS : S_NUM_NEG), buckets);
  }
  store<u32>(state + S_POS, wEnd());
}

/** A JS number that is an integer within ±(2^53 - 1), and >= 0 when `unsigned`. */
// @ts-ignore: decorator
@inline function safeInt(x: f64, unsigned: bool): bool {
  return x == trunc<f64>(x) && abs<f64>(x) <= 9007199254740991.0 && (!unsigned || x >= 0);
}

/** Checks an integer sample's numbers before anything of it is written. */
function intsOk(rec: usize, nb: u32): bool {
  if (!safeInt(load<f64>(rec + HIST_SAMPLE_COUNT), true) || !safeInt(load<f64>(rec + HIST_SAMPLE_ZERO_COUNT), true)) return false;
  const end = rec + HIST_SAMPLE_FIXED + <usize>nb * HIST_SAMPLE_BUCKET_BYTES;
  for (let p = rec + HIST_SAMPLE_FIXED; p < end; p += HIST_SAMPLE_BUCKET_BYTES) {
    if (!safeInt(load<f64>(p), false)) return false;
  }
  return true;
}

/**
 * Appends up to `n` integer histograms (HistogramAppender.AppendHistogram)
 * from `input` (sample records, counts and bucket deltas as float64
 * integers) to the chunk at `buf` of `cap` bytes, with the per-bucket
 * state at `buckets`. The layout must be written.
 * Returns how many were appended (fewer when the next might not fit `cap`),
 * or -(i + HIST_ENCODE_BAD_INT) when sample i is refused (nothing of it
 * written). Does not touch the count bytes: the host owns them.
 */
export function histAppendInt(state: usize, buckets: usize, buf: usize, cap: u32, input: usize, n: u32): i32 {
  const nb = load<u32>(state + S_NUM_POS) + load<u32>(state + S_NUM_NEG);
  const stride = HIST_SAMPLE_FIXED + nb * HIST_SAMPLE_BUCKET_BYTES;
  const need = <usize>(HIST_MAX_FIXED_BYTES + nb * HIST_MAX_BUCKET_BYTES + HIST_SLACK_BYTES);
  let count = load<u32>(state + S_COUNT);
  let t = load<i64>(state + S_T);
  let tDelta = load<i64>(state + S_TDELTA);
  let cnt = load<u64>(state + S_CNT);
  let zCnt = load<u64>(state + S_ZCNT);
  let cntDelta = load<i64>(state + S_CNT_DELTA);
  let zCntDelta = load<i64>(state + S_ZCNT_DELTA);
  let stale = load<u32>(state + S_INDEX) != 0;
  let pad = load<u32>(state + S_PAD);
  wBegin(buf, load<u32>(state + S_POS));
  let i: u32 = 0;
  let result: i32 = 0;
  for (; i < n; i++) {
    if (wOffset() + need > <usize>cap) break;
    const rec = input + <usize>i * <usize>stride;
    const st = load<i64>(rec + HIST_SAMPLE_T);
    const sum = load<u64>(rec + HIST_SAMPLE_SUM);
    // A stale marker is written as Histogram{Sum: StaleNaN}: zero counts, no buckets.
    if (sum != STALE_NAN && !intsOk(rec, nb)) {
      result = -(<i32>i + HIST_ENCODE_BAD_INT);
      break;
    }
    stale = sum == STALE_NAN;
    const c = stale ? 0 : <u64>load<f64>(rec + HIST_SAMPLE_COUNT);
    const z = stale ? 0 : <u64>load<f64>(rec + HIST_SAMPLE_ZERO_COUNT);
    if (count == 0) {
      putVarbitInt(st);
      putVarbitUint(c);
      putVarbitUint(z);
      store<u64>(state + S_SUM + XF_BITS, sum);
      putBits(sum, 64);
      for (let k: u32 = 0; k < nb && !stale; k++) {
        const v = <i64>load<f64>(rec + HIST_SAMPLE_FIXED + <usize>k * HIST_SAMPLE_BUCKET_BYTES);
        const b = buckets + <usize>k * HIST_BUCKET_STATE_SIZE;
        store<i64>(b, v);
        store<i64>(b + 8, 0);
        putVarbitInt(v);
      }
      tDelta = 0;
      cntDelta = 0;
      zCntDelta = 0;
    } else {
      const d = st - t;
      const cd = <i64>(c - cnt);
      const zd = <i64>(z - zCnt);
      putVarbitInt(d - tDelta);
      // Go writes zero dods for a stale marker but still keeps its deltas.
      putVarbitInt(stale ? 0 : cd - cntDelta);
      putVarbitInt(stale ? 0 : zd - zCntDelta);
      putXor(state + S_SUM, sum);
      if (!stale) {
        for (let k: u32 = 0; k < nb; k++) {
          const v = <i64>load<f64>(rec + HIST_SAMPLE_FIXED + <usize>k * HIST_SAMPLE_BUCKET_BYTES);
          const b = buckets + <usize>k * HIST_BUCKET_STATE_SIZE;
          const delta = v - load<i64>(b);
          putVarbitInt(delta - load<i64>(b + 8));
          store<i64>(b, v);
          store<i64>(b + 8, delta);
        }
      }
      tDelta = d;
      cntDelta = cd;
      zCntDelta = zd;
    }
    t = st;
    cnt = c;
    zCnt = z;
    count++;
    pad = wPad();
  }
  store<u32>(state + S_POS, wEnd());
  store<u32>(state + S_COUNT, count);
  store<i64>(state + S_T, t);
  store<i64>(state + S_TDELTA, tDelta);
  store<u64>(state + S_CNT, cnt);
  store<u64>(state + S_ZCNT, zCnt);
  store<i64>(state + S_CNT_DELTA, cntDelta);
  store<i64>(state + S_ZCNT_DELTA, zCntDelta);
  store<u32>(state + S_INDEX, stale ? 1 : 0);
  store<u32>(state + S_PAD, pad);
  return result != 0 ? result : <i32>i;
}

/**
 * Appends up to `n` float histograms (FloatHistogramAppender.AppendFloatHistogram):
 * as histAppendInt, with every value taken as float64 bits and XOR coded.
 */
export function histAppendFloat(state: usize, buckets: usize, buf: usize, cap: u32, input: usize, n: u32): i32 {
  const nb = load<u32>(state + S_NUM_POS) + load<u32>(state + S_NUM_NEG);
  const stride = HIST_SAMPLE_FIXED + nb * HIST_SAMPLE_BUCKET_BYTES;
  const need = <usize>(HIST_MAX_FIXED_BYTES + nb * HIST_MAX_BUCKET_BYTES + HIST_SLACK_BYTES);
  let count = load<u32>(state + S_COUNT);
  let t = load<i64>(state + S_T);
  let tDelta = load<i64>(state + S_TDELTA);
  let stale = load<u32>(state + S_INDEX) != 0;
  let pad = load<u32>(state + S_PAD);
  wBegin(buf, load<u32>(state + S_POS));
  let i: u32 = 0;
  for (; i < n; i++) {
    if (wOffset() + need > <usize>cap) break;
    const rec = input + <usize>i * <usize>stride;
    const st = load<i64>(rec + HIST_SAMPLE_T);
    const sum = load<u64>(rec + HIST_SAMPLE_SUM);
    stale = sum == STALE_NAN;
    const c = stale ? 0 : load<u64>(rec + HIST_SAMPLE_COUNT);
    const z = stale ? 0 : load<u64>(rec + HIST_SAMPLE_ZERO_COUNT);
    if (count == 0) {
      putVarbitInt(st);
      store<u64>(state + S_CNT + XF_BITS, c);
      store<u64>(state + S_ZCNT + XF_BITS, z);
      store<u64>(state + S_SUM + XF_BITS, sum);
      putBits(c, 64);
      putBits(z, 64);
      putBits(sum, 64);
      for (let k: u32 = 0; k < nb && !stale; k++) {
        const v = load<u64>(rec + HIST_SAMPLE_FIXED + <usize>k * HIST_SAMPLE_BUCKET_BYTES);
        const b = buckets + <usize>k * HIST_BUCKET_STATE_SIZE;
        initXorField(b, NO_WINDOW);
        store<u64>(b + XF_BITS, v);
        putBits(v, 64);
      }
      tDelta = 0;
    } else {
      const d = st - t;
      putVarbitInt(d - tDelta);
      putXor(state + S_CNT, c);
      putXor(state + S_ZCNT, z);
      putXor(state + S_SUM, sum);
      if (!stale) {
        for (let k: u32 = 0; k < nb; k++) {
          putXor(buckets + <usize>k * HIST_BUCKET_STATE_SIZE, load<u64>(rec + HIST_SAMPLE_FIXED + <usize>k * HIST_SAMPLE_BUCKET_BYTES));
        }
      }
      tDelta = d;
    }
    t = st;
    count++;
    pad = wPad();
  }
  store<u32>(state + S_POS, wEnd());
  store<u32>(state + S_COUNT, count);
  store<i64>(state + S_T, t);
  store<i64>(state + S_TDELTA, tDelta);
  store<u32>(state + S_INDEX, stale ? 1 : 0);
  store<u32>(state + S_PAD, pad);
  return <i32>i;
}

/** Bytes of the chunk: its bits rounded up, plus Go's spare zero byte when there is one. */
export function histAppenderBytes(state: usize): u32 {
  return ((load<u32>(state + S_POS) + 7) >>> 3) + load<u32>(state + S_PAD);
}

// ---------------------------------------------------------------------------
// Decoding.

function fail(it: usize, err: i32): i32 {
  store<i32>(it + S_ERR, err);
  return err;
}

/**
 * A chunk ends with its last sample's bits, zero padded to a byte, plus at
 * most one spare zero byte when those bits end on a byte boundary.
 */
function endsWell(buf: usize, pos: u32, len: u32): bool {
  const used = (pos + 7) >>> 3;
  if (used == len) return true;
  return used + 1 == len && (pos & 7) == 0 && load<u8>(buf + used) == 0;
}

/**
 * Reads the header and layout of the chunk of `len` bytes at `buf`
 * (followed by HIST_SLACK_BYTES readable bytes) into the decoder state `it`.
 * Returns the sample count or an error. Bounds what the host allocates: a
 * layout may not promise more spans or buckets than the chunk has bits for
 * (a span takes at least 2 bits; a bucket at least 1 bit, 64 in float chunks).
 */
export function histDecodeInit(it: usize, buf: usize, len: u32, float: bool): i32 {
  memory.fill(it, 0, HIST_STATE_SIZE);
  if (len < 3) return fail(it, ERR_TOO_SHORT);
  const count = <u32>bswap<u16>(load<u16>(buf));
  store<u32>(it + S_COUNT, count);
  store<u32>(it + S_HEADER, <u32>load<u8>(buf + 2) >>> 6);
  rBegin(buf, HEADER_BITS, len << 3);
  if (count == 0) {
    if (!endsWell(buf, HEADER_BITS, len)) return fail(it, ERR_TRAILING);
    return 0;
  }
  const b = <u32>getBits(8);
  let zt: u64 = 0;
  if (b == 255) zt = getBits(64);
  else if (b != 0) zt = <u64>(b - 244 + 1023) << 52; // math.Ldexp(0.5, b - 243)
  const schema = <i32>getVarbitInt();
  if (rErr != 0) return fail(it, rErr);
  if (schema == CUSTOM_BUCKETS_SCHEMA) return fail(it, ERR_SCHEMA);
  store<i32>(it + S_SCHEMA, schema);
  store<u64>(it + S_ZT, zt);
  store<u32>(it + S_SPANS_AT, rAt());
  let numPos: u64 = 0;
  let numNeg: u64 = 0;
  for (let side = 0; side < 2; side++) {
    const n = getVarbitUint();
    if (rErr != 0) return fail(it, rErr);
    if (n > <u64>(rLeft() >>> 1)) return fail(it, ERR_BAD_LAYOUT);
    let buckets: u64 = 0;
    for (let i: u32 = 0; i < <u32>n; i++) {
      buckets += getVarbitUint() & 0xffffffff; // Go keeps uint32(length)
      getVarbitInt();
    }
    if (rErr != 0) return fail(it, rErr);
    store<u32>(it + (side == 0 ? S_POS_SPANS : S_NEG_SPANS), <u32>n);
    if (side == 0) numPos = buckets;
    else numNeg = buckets;
  }
  // Each sum is below 2^63 (fewer than 2^31 spans of under 2^32 buckets).
  if (numPos + numNeg > <u64>(float ? rLeft() >>> 6 : rLeft())) return fail(it, ERR_BAD_LAYOUT);
  store<u32>(it + S_NUM_POS, <u32>numPos);
  store<u32>(it + S_NUM_NEG, <u32>numNeg);
  store<u32>(it + S_POS, rAt());
  return <i32>count;
}

/** Writes the spans histDecodeInit validated to `out`: (offset i32, length u32) pairs, positive first. */
export function histDecodeSpans(it: usize, buf: usize, len: u32, out: usize): void {
  rBegin(buf, load<u32>(it + S_SPANS_AT), len << 3);
  for (let side = 0; side < 2; side++) {
    const n = <u32>getVarbitUint();
    for (let i: u32 = 0; i < n; i++) {
      store<u32>(out + HIST_SPAN_LENGTH, <u32>getVarbitUint());
      store<i32>(out + HIST_SPAN_OFFSET, <i32>getVarbitInt());
      out += HIST_SPAN_SIZE;
    }
  }
}

/**
 * Decodes the samples of a chunk histDecodeInit accepted into `out` of
 * `cap` bytes: per sample HIST_SAMPLE_FIXED bytes (t, count, zero count as
 * float64 numbers in integer chunks and as bits in float ones, sum bits),
 * then, unless the sample is a stale marker, its buckets (integer chunks:
 * the delta-encoded values as float64 numbers; float chunks: bits).
 * `buckets` is scratch of HIST_BUCKET_STATE_SIZE per bucket. Returns the
 * sample count or an error; the state's index says where it failed.
 */
export function histDecode(it: usize, buckets: usize, buf: usize, len: u32, out: usize, cap: u32, float: bool): i32 {
  const count = load<u32>(it + S_COUNT);
  const nb = load<u32>(it + S_NUM_POS) + load<u32>(it + S_NUM_NEG);
  const end = out + <usize>cap;
  let t: i64 = 0;
  let tDelta: i64 = 0;
  let cnt: u64 = 0;
  let zCnt: u64 = 0;
  let cntDelta: i64 = 0;
  let zCntDelta: i64 = 0;
  // Go's readers start every XOR window at (0, 0).
  initXorField(it + S_CNT, 0);
  initXorField(it + S_ZCNT, 0);
  initXorField(it + S_SUM, 0);
  rBegin(buf, load<u32>(it + S_POS), len << 3);
  let index: u32 = 0;
  let err: i32 = 0;
  for (; index < count; index++) {
    if (index == 0) {
      t = getVarbitInt();
      if (float) {
        store<u64>(it + S_CNT + XF_BITS, getBits(64));
        store<u64>(it + S_ZCNT + XF_BITS, getBits(64));
      } else {
        cnt = getVarbitUint();
        zCnt = getVarbitUint();
      }
      store<u64>(it + S_SUM + XF_BITS, getBits(64));
      // Go reads the first sample's buckets even when it is a stale marker.
      for (let k: u32 = 0; k < nb; k++) {
        const b = buckets + <usize>k * HIST_BUCKET_STATE_SIZE;
        if (float) {
          initXorField(b, 0);
          store<u64>(b + XF_BITS, getBits(64));
        } else {
          store<i64>(b, getVarbitInt());
          store<i64>(b + 8, 0);
        }
      }
    } else {
      tDelta += getVarbitInt();
      t += tDelta;
      if (float) {
        getXor(it + S_CNT);
        getXor(it + S_ZCNT);
      } else {
        cntDelta += getVarbitInt();
        cnt += <u64>cntDelta;
        zCntDelta += getVarbitInt();
        zCnt += <u64>zCntDelta;
      }
      getXor(it + S_SUM);
      if (rErr == 0 && load<u64>(it + S_SUM + XF_BITS) != STALE_NAN) {
        for (let k: u32 = 0; k < nb; k++) {
          const b = buckets + <usize>k * HIST_BUCKET_STATE_SIZE;
          if (float) {
            getXor(b);
          } else {
            const delta = load<i64>(b + 8) + getVarbitInt();
            store<i64>(b + 8, delta);
            store<i64>(b, load<i64>(b) + delta);
          }
        }
      }
    }
    if (rErr != 0) {
      err = rErr;
      break;
    }
    const sum = load<u64>(it + S_SUM + XF_BITS);
    const stale = sum == STALE_NAN;
    const size = <usize>HIST_SAMPLE_FIXED + (stale ? 0 : <usize>nb * HIST_SAMPLE_BUCKET_BYTES);
    if (out + size > end) {
      err = ERR_TOO_MANY;
      break;
    }
    store<i64>(out + HIST_SAMPLE_T, t);
    if (float) {
      store<u64>(out + HIST_SAMPLE_COUNT, load<u64>(it + S_CNT + XF_BITS));
      store<u64>(out + HIST_SAMPLE_ZERO_COUNT, load<u64>(it + S_ZCNT + XF_BITS));
    } else {
      store<f64>(out + HIST_SAMPLE_COUNT, <f64>cnt);
      store<f64>(out + HIST_SAMPLE_ZERO_COUNT, <f64>zCnt);
    }
    store<u64>(out + HIST_SAMPLE_SUM, sum);
    out += HIST_SAMPLE_FIXED;
    if (!stale) {
      for (let k: u32 = 0; k < nb; k++) {
        const b = buckets + <usize>k * HIST_BUCKET_STATE_SIZE;
        if (float) store<u64>(out, load<u64>(b + XF_BITS));
        else store<f64>(out, <f64>load<i64>(b));
        out += HIST_SAMPLE_BUCKET_BYTES;
      }
    }
  }
  store<u32>(it + S_INDEX, index);
  if (err == 0 && !endsWell(buf, rAt(), len)) err = ERR_TRAILING;
  if (err != 0) return fail(it, err);
  return <i32>count;
}

/** Samples read before an error (the index of the failing sample). */
export function histDecodeIndex(it: usize): u32 {
  return load<u32>(it + S_INDEX);
}

/** The decoder's header fields histDecodeField reads: samples, counter-reset header, schema, span and bucket counts. */
export const HIST_FIELD_COUNT: u32 = 0, HIST_FIELD_HEADER: u32 = 1, HIST_FIELD_SCHEMA: u32 = 2;
export const HIST_FIELD_POS_SPANS: u32 = 3, HIST_FIELD_NEG_SPANS: u32 = 4;
export const HIST_FIELD_NUM_POS: u32 = 5, HIST_FIELD_NUM_NEG: u32 = 6;

/** One of the decoder's header fields (HIST_FIELD_*); 0 for another number. */
export function histDecodeField(it: usize, field: u32): i32 {
  switch (field) {
    case HIST_FIELD_COUNT: return load<i32>(it + S_COUNT);
    case HIST_FIELD_HEADER: return load<i32>(it + S_HEADER);
    case HIST_FIELD_SCHEMA: return load<i32>(it + S_SCHEMA);
    case HIST_FIELD_POS_SPANS: return load<i32>(it + S_POS_SPANS);
    case HIST_FIELD_NEG_SPANS: return load<i32>(it + S_NEG_SPANS);
    case HIST_FIELD_NUM_POS: return load<i32>(it + S_NUM_POS);
    case HIST_FIELD_NUM_NEG: return load<i32>(it + S_NUM_NEG);
    default: return 0;
  }
}

/** The zero threshold's bit pattern lives at this offset of the decoder state. */
export const HIST_STATE_ZT: u32 = <u32>S_ZT;
/** Byte offsets of the appender state the host reads: bits written, samples. */
export const HIST_STATE_POS: u32 = <u32>S_POS;
export const HIST_STATE_COUNT: u32 = <u32>S_COUNT;

