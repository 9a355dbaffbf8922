// Entry point of build/strata.wasm: the XOR chunk codec and memory management
// for the buffers the host places in this module's memory.
//
// The constants exported here are the layouts and codes the host shares with
// the module. src/wasm/layout.ts declares the host's copy, and the host checks
// every one of them against these exports when it instantiates the module:
// change one here and there together (a group G's field `fooBar` is G_FOO_BAR).
export {
  MAX_SAMPLES, MAX_SAMPLE_BYTES, SLACK_BYTES, APPENDER_SIZE, ITERATOR_SIZE,
  ERR_TOO_SHORT as XOR_ERR_TOO_SHORT, ERR_TRUNCATED as XOR_ERR_TRUNCATED, ERR_BAD_WINDOW as XOR_ERR_BAD_WINDOW,
  ERR_TRAILING as XOR_ERR_TRAILING, ERR_TOO_MANY as XOR_ERR_TOO_MANY, ERR_BAD_VARINT as XOR_ERR_BAD_VARINT,
  appenderInit, appenderBytes, appenderCount, appendSamples,
  iterInit, iterBatch, iterSeek, iterT, iterIndex, iterErr, decodeChunk,
} from './xor';
export { mergeEncode, MERGED_SIZE, M_OFF as MERGED_OFF, M_LEN as MERGED_LEN, M_MINT as MERGED_MIN_T, M_MAXT as MERGED_MAX_T } from './merge';

/** Allocates `size` bytes of this module's memory, 16-byte aligned. */
export function alloc(size: usize): usize {
  return heap.alloc(size);
}

/** Frees a block from `alloc`. */
export function free(ptr: usize): void {
  heap.free(ptr);
}
export { xxh64, hashEntries } from './xxhash';
export {
  KEY_SIZE as SERIES_KEY_SIZE, K_START as SERIES_KEY_START, K_END as SERIES_KEY_END, K_LABELS as SERIES_KEY_LABELS_END,
  K_FLAGS as SERIES_KEY_FLAGS, K_A as SERIES_KEY_A, K_B as SERIES_KEY_B, KEYED,
  seriesKeys, keyBytes,
} from './series-keys';
// A series slot starts with the XOR appender's state: its fields are the slot's first.
export {
  A_POS as SLOT_BIT_POS, A_COUNT as SLOT_COUNT, A_T as SLOT_LAST_T, A_PAD_BYTE as SLOT_PAD_BYTE, A_EVEN as SLOT_EVEN,
  A_STEP as SLOT_STEP,
} from './xor';
export {
  SLOT_SIZE, S_BUF as SLOT_BUF, S_CAP as SLOT_CAP, S_MINT as SLOT_MIN_T, S_MAXT as SLOT_MAX_T, S_LASTV as SLOT_LAST_V,
  S_ID as SLOT_ID, S_FLAGS as SLOT_FLAGS, S_WALSEG as SLOT_WAL_SEG, S_LABELS_LEN as SLOT_LABELS_LEN,
  F_HAS_DATA as SLOT_HAS_DATA,
  ENTRY_SIZE, E_HASH as ENTRY_HASH, E_REF as ENTRY_REF, E_LABELS_OFF as ENTRY_LABELS_OFF, E_LABELS_LEN as ENTRY_LABELS_LEN,
  E_START as ENTRY_START, E_COUNT as ENTRY_COUNT, E_SLOT as ENTRY_SLOT,
  CUT_SIZE, C_ID as CUT_ID, C_LEN as CUT_LEN, C_MINT as CUT_MIN_T, C_MAXT as CUT_MAX_T, C_BUF as CUT_BUF, C_COUNT as CUT_COUNT,
  OOO_ENTRY_SIZE, O_ID as OOO_ENTRY_ID, O_ENTRY as OOO_ENTRY_ENTRY, O_SAMPLE as OOO_ENTRY_SAMPLE,
  STAT_APPENDED, STAT_IGNORED, STAT_OUT_OF_ORDER, STAT_CONFLICT, STAT_TOO_OLD, STAT_MISSING, STAT_TOO_FAR, STAT_OOO,
  headInit, headStatsReset, headStat, headFirstEntry, headFirstT, headBatchMinT, headBatchMaxT,
  headWalPtr, headWalLen, headWalReset, headCutsPtr, headCutsCount, headCutsRelease,
  headMissingPtr, headMissingCount, headOooPtr, headOooCount, headSeriesCount, headSlot, headFind, headFindWords, headNewSeries, headLoadSeries, headReserve, headDropSeries,
  headAppend, headReplay, headCutOpen, headDropOpen,
} from './head';
export {
  OUT_SLACK, LIST_DESC_PTR, LIST_DESC_LENGTH, LIST_DESC_SIZE, DICT_SLACK, PROG_SLACK, PROG_FOLD, PROG_UNSURE_NON_ASCII, ANY_NONE, ANY_STAR, ANY_PLUS, UNSURE,
  PROG_FLAGS, PROG_TERM_COUNT, PROG_TERMS, PROG_TERM_SIZE, PROG_TERM_SHAPE, PROG_TERM_LITERAL_AT, PROG_TERM_LITERAL_LENGTH,
  PROG_TRAIL_SHIFT,
  intersect2, intersectMany, union2, unionMany, unionScratchBytes, subtract, matchValues,
} from './matcher';
export {
  HIST_STATE_SIZE, HIST_BUCKET_STATE_SIZE, HIST_MAX_FIXED_BYTES,
  HIST_MAX_BUCKET_BYTES, HIST_SLACK_BYTES, HIST_ENCODE_BAD_INT, HIST_STATE_ZT, HIST_STATE_POS, HIST_STATE_COUNT,
  HIST_SAMPLE_T, HIST_SAMPLE_COUNT, HIST_SAMPLE_ZERO_COUNT, HIST_SAMPLE_SUM, HIST_SAMPLE_FIXED, HIST_SAMPLE_BUCKET_BYTES,
  HIST_LAYOUT_SCHEMA, HIST_LAYOUT_ZERO_THRESHOLD, HIST_LAYOUT_SPANS, HIST_SPAN_OFFSET, HIST_SPAN_LENGTH, HIST_SPAN_SIZE,
  HIST_FIELD_COUNT, HIST_FIELD_HEADER, HIST_FIELD_SCHEMA, HIST_FIELD_POS_SPANS, HIST_FIELD_NEG_SPANS,
  HIST_FIELD_NUM_POS, HIST_FIELD_NUM_NEG,
  ERR_TOO_SHORT as HIST_ERR_TOO_SHORT, ERR_TRAILING as HIST_ERR_TRAILING, ERR_TOO_MANY as HIST_ERR_TOO_MANY,
  ERR_BAD_LAYOUT as HIST_ERR_BAD_LAYOUT, ERR_SCHEMA as HIST_ERR_SCHEMA,
  histAppenderInit, histWriteLayout, histAppendInt, histAppendFloat, histAppenderBytes,
  histDecodeInit, histDecodeSpans, histDecode, histDecodeIndex, histDecodeField,
} from './histogram';
// The histogram decoder's other two errors come from its bit reader, and
// so does the stale marker that ends a sample record's data.
export { ERR_TRUNCATED as HIST_ERR_TRUNCATED, ERR_BAD_WINDOW as HIST_ERR_BAD_WINDOW, STALE_NAN_HI, STALE_NAN_LO } from './varbit';
export { heapFreePages } from './free-pages';
