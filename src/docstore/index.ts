/**
 * The JSON record store: append-only, memory-mapped segment files with
 * group commit, crash recovery and background compaction.
 * docs/format/records.md describes the files.
 */
export type { Collection, RecordStore, RecordValue, WriteOp } from './types.js';
export { openRecordStore, SegmentRecordStore, type RecordStoreStats } from './store.js';
export type { CompactionStep, RecordsLogger, RecordStoreOptions } from './options.js';
export { InvalidWriteError, RecordsCorruptError, RecordStoreStateError } from './errors.js';
