/**
 * The write-ahead log (docs/format/wal.md): typed, checksummed records in
 * numbered segment files, replayed on start, truncated by checkpoints.
 * Payload-agnostic: the head decides what a record type means.
 */
export { Wal } from './wal.js';
export type { WalStats } from './wal.js';
export type { WalLog, WalOptions } from './options.js';
export { DEFAULT_FSYNC_INTERVAL_MS, DEFAULT_SEGMENT_BYTES } from './options.js';
export type { WalPayload, WalRecord } from './record-input.js';
export type { ReplaySink } from './replay.js';
export { ReplayProgress } from './replay-progress.js';
export { WalCorruptionError, WalError } from './errors.js';
export type { WalErrorReason } from './errors.js';
export { MAX_PAYLOAD_BYTES, MAX_RECORD_TYPE, MIN_RECORD_TYPE } from './format.js';
