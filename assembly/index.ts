// Entry point of build/strata.wasm: the XOR chunk codec and memory management
// for the buffers the host places in this module's memory.
export {
  MAX_SAMPLES, SLACK_BYTES, APPENDER_SIZE, ITERATOR_SIZE,
  appenderInit, appenderBytes, appenderCount, appendSamples,
  iterInit, iterBatch, iterSeek, iterT, iterIndex, iterErr, decodeChunk,
} from './xor';

/** Allocates `size` bytes of this module's memory, 16-byte aligned. */
export function alloc(size: usize): usize {
  return heap.alloc(size);
}

/** Frees a block from `alloc`. */
export function free(ptr: usize): void {
  heap.free(ptr);
}
export { xxh64, hashEntries } from './xxhash';
export { KEY_SIZE, KEYED, seriesKeys } from './series-keys';
export {
  SLOT_SIZE, ENTRY_SIZE, CUT_SIZE,
  headInit, headStatsReset, headStat, headFirstEntry, headFirstT, headBatchMinT, headBatchMaxT,
  headWalPtr, headWalLen, headWalReset, headCutsPtr, headCutsCount, headCutsRelease,
  headMissingPtr, headMissingCount, headOooPtr, headOooCount, headSeriesCount, headSlot, headFind, headNewSeries, headDropSeries,
  headAppend, headReplay, headCutOpen, headDropOpen,
} from './head';
export {
  OUT_SLACK, DICT_SLACK, PROG_SLACK, PROG_FOLD, PROG_UNSURE_NON_ASCII, ANY_NONE, ANY_STAR, ANY_PLUS, UNSURE,
  intersect2, intersectMany, union2, unionMany, unionScratchBytes, subtract, matchValues,
} from './matcher';
export {
  HIST_STATE_SIZE, HIST_BUCKET_STATE_SIZE, HIST_SAMPLE_FIXED, HIST_LAYOUT_SPANS, HIST_MAX_FIXED_BYTES,
  HIST_MAX_BUCKET_BYTES, HIST_SLACK_BYTES, HIST_ENCODE_BAD_INT, HIST_STATE_ZT, HIST_STATE_POS, HIST_STATE_COUNT,
  histAppenderInit, histWriteLayout, histAppendInt, histAppendFloat, histAppenderBytes,
  histDecodeInit, histDecodeSpans, histDecode, histDecodeIndex, histDecodeField,
} from './histogram';
