// The memory layouts and codes the host shares with build/strata.wasm, in
// one place. The module exports each of them as a constant (assembly/index.ts:
// a group G's field `fooBar` is its export G_FOO_BAR, a lone constant keeps
// its name), and instantiateStrataWasm() checks every export of this file
// against the instance (layout-check.ts), so a change on one side only fails
// at start instead of corrupting chunks. They stay plain literals here, not
// values read from the instance: hot loops use them and the JIT inlines them.
// Every export of this file is checked, so it exports numbers and groups of
// numbers only.

/** Series slot of the head (assembly/head.ts): byte offsets; the XOR appender's state comes first. */
export const SLOT = {
  bitPos: 0, // u32 bits written (appender state)
  count: 4, // u32 samples in the open chunk (appender state)
  lastT: 8, // i64 last timestamp of the open chunk (appender state)
  step: 36, // u32 the open chunk's first time delta, 0 when over 32 bits (appender state)
  padByte: 40, // u32 1 when the chunk ends in Prometheus' spare zero byte (appender state)
  even: 44, // u32 how many of the first samples are evenly spaced (appender state)
  buf: 48, // u32 open chunk buffer, 0 when there is none
  cap: 52, // u32 its capacity
  minT: 56, // i64 open chunk's first timestamp
  maxT: 72, // i64 newest timestamp of the series
  lastV: 80, // u64 bits of the newest value
  id: 88, // u32 series id
  flags: 92, // u32 SLOT_HAS_DATA
  walSeg: 96, // u32 WAL segment holding the open chunk's first sample
  labelsLen: 100, // u32 length of the canonical label bytes, which follow the slot (at size)
  size: 112,
} as const;
/** SLOT.flags: the series has a newest sample (SLOT.maxT, SLOT.lastV). */
export const SLOT_HAS_DATA = 1;

/** Batch entry (32 bytes): one series' run of samples in an append batch. */
export const ENTRY = { size: 32, hash: 0, ref: 8, labelsOff: 12, labelsLen: 16, start: 20, count: 24, slot: 28 } as const;

/** Cut chunk record (32 bytes) the head hands over (headCutsPtr). */
export const CUT = { size: 32, id: 0, len: 4, minT: 8, maxT: 16, buf: 24, count: 28 } as const;

/** Indices of headStat: what became of the samples of the calls since headStatsReset. */
export const STAT = { appended: 0, ignored: 1, outOfOrder: 2, conflict: 3, tooOld: 4, missing: 5, tooFar: 6, ooo: 7 } as const;

/** Out-of-order list entry (headOooPtr): series id, batch entry, sample index; u32 each. */
export const OOO_ENTRY = { size: 12, id: 0, entry: 4, sample: 8 } as const;

/** A chunk record of mergeEncode (assembly/merge.ts): its bytes at off (from the output's start), len; its first and last time. */
export const MERGED = { size: 24, off: 0, len: 4, minT: 8, maxT: 16 } as const;

/** XOR appender state size (assembly/xor.ts); a series slot starts with one. */
export const APPENDER_SIZE = 48;
/** XOR iterator state size (assembly/xor.ts). */
export const ITERATOR_SIZE = 48;
/** Readable slack the module needs after every chunk buffer. */
export const SLACK_BYTES = 8;
/** Upper bound of the bytes one sample adds to a chunk (157 bits, rounded up). */
export const MAX_SAMPLE_BYTES = 20;
/** A chunk's 16-bit sample count caps it at this many samples. */
export const MAX_SAMPLES = 65535;
/** The XOR decoder's negative results. */
export const XOR_ERR = { tooShort: -1, truncated: -2, badWindow: -3, trailing: -4, tooMany: -5, badVarint: -6 } as const;

/** Writable ids an output buffer needs past its largest result (assembly/postings.ts). */
export const OUT_SLACK = 4;
/** Entry of a descriptor table of id lists (assembly/postings.ts): byte offsets of its u32 pointer and length (ids). */
export const LIST_DESC = { size: 8, ptr: 0, length: 4 } as const;
/** Readable bytes needed past a value dictionary (assembly/matcher.ts). */
export const DICT_SLACK = 16;
/** Scan program of matchValues (assembly/matcher.ts): byte offsets of its u32 header words; the terms follow. */
export const PROG = { flags: 0, termCount: 4, terms: 8 } as const;
/** A term of a scan program: byte offsets of its u32 words (the literal's offset counts from the program's start). */
export const PROG_TERM = { size: 12, shape: 0, literalAt: 4, literalLength: 8 } as const;
/** A term's shape word: lead | trail << PROG_TRAIL_SHIFT, each an ANY_* kind. */
export const PROG_TRAIL_SHIFT = 2;
/** Readable bytes needed past a program's last literal (assembly/matcher.ts). */
export const PROG_SLACK = 16;
/** Program flag: compare ASCII letters case-insensitively (assembly/matcher.ts). */
export const PROG_FOLD = 1;
/** Program flag: a value with a non-ASCII byte is undecided (left to RE2). */
export const PROG_UNSURE_NON_ASCII = 2;
/** A term's lead and trail kinds: none, `.*`, `.+`. */
export const ANY_NONE = 0;
export const ANY_STAR = 1;
export const ANY_PLUS = 2;
/** Set on a value index that `matchValues` could not decide. */
export const UNSURE = 0x80000000;

/** Record per TimeSeries of `seriesKeys` (assembly/series-keys.ts): byte offsets. */
export const SERIES_KEY = {
  size: 32,
  start: 0, // u32 first byte of the TimeSeries' fields
  end: 4, // u32 end of the TimeSeries
  labelsEnd: 8, // u32 end of its leading Label fields
  flags: 12, // u32 KEYED when the key may stand for the labels
  a: 16, // u64 xxh64(label bytes, seed a)
  b: 24, // u64 xxh64(label bytes, seed b)
} as const;
/** SERIES_KEY.flags: the series' labels are all in its leading fields, and it has no exemplars. */
export const KEYED = 1;

/** The histogram codecs' memory layout (assembly/histogram.ts). */
export const HIST = {
  STATE_SIZE: 136,
  BUCKET_STATE_SIZE: 16,
  MAX_FIXED_BYTES: 40,
  MAX_BUCKET_BYTES: 10,
  SLACK_BYTES: 8,
  ENCODE_BAD_INT: 1 << 20,
  STATE_ZT: 112,
  STATE_POS: 0,
  STATE_COUNT: 4,
} as const;
/**
 * Histogram sample record (assembly/histogram.ts), the appenders' input and
 * the decoder's output: byte offsets of its 8-byte slots, then its buckets,
 * positive ones first. A record whose sum is STALE_NAN has no buckets in the
 * decoder's output.
 */
export const HIST_SAMPLE = {
  t: 0, // i64
  count: 8, // float64: a number in integer chunks, its bits in float ones
  zeroCount: 16, // as count
  sum: 24, // float64 bits
  fixed: 32, // bytes before the buckets
  bucketBytes: 8, // float64 a bucket: as count (integer chunks: the delta-coded value)
} as const;
/** Layout record histWriteLayout reads (assembly/histogram.ts): byte offsets. */
export const HIST_LAYOUT = {
  schema: 0, // i32
  zeroThreshold: 8, // float64 bits
  spans: 16, // HIST_SPAN records, positive ones first
} as const;
/** A span of a layout record and of histDecodeSpans' output: byte offsets. */
export const HIST_SPAN = { size: 8, offset: 0, length: 4 } as const; // offset i32, length u32
/**
 * Prometheus' stale marker 0x7ff0000000000002 as its high and low 32-bit
 * words: the histogram codecs read it in a record's sum, and the decoder
 * writes no buckets after it.
 */
export const STALE_NAN = { hi: 0x7ff00000, lo: 0x00000002 } as const;
/** histDecodeField's fields. */
export const HIST_FIELD = { COUNT: 0, HEADER: 1, SCHEMA: 2, POS_SPANS: 3, NEG_SPANS: 4, NUM_POS: 5, NUM_NEG: 6 } as const;
/** The histogram decoder's negative results. */
export const HIST_ERR = { tooShort: -1, truncated: -2, badWindow: -3, trailing: -4, tooMany: -5, badLayout: -6, schema: -7 } as const;
