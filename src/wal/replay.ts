/**
 * Start-up: clean what a crash left, check the sequence of files, read the
 * newest checkpoint and every segment after it, and cut a torn tail off
 * the last segment. The rules are in docs/format/wal.md.
 */
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isZero } from '../encoding/bytes.js';
import { corruption, missingSegmentsReason } from './errors.js';
import { listWalDir } from './dir.js';
import { FILE_HEADER_BYTES, KIND_CHECKPOINT, KIND_SEGMENT, checkpointName, segmentName } from './format.js';
import { fileHeaderProblem } from './frame.js';
import type { WalLog } from './options.js';
import { ReplayProgress } from './replay-progress.js';
import { nextRecordAfter, scanRecords } from './scan.js';

/**
 * Receives each record replayed, in order. `payload` is valid only during
 * the call. `segment` is the record's segment number; records of
 * checkpoint N come with N - 1 (they stand for the segments before N).
 */
export type ReplaySink = (type: number, payload: Uint8Array, segment: number) => void;

export interface WalFileSize {
  n: number;
  bytes: number;
}

/** A damaged stretch of a WAL file that replay skipped. */
export interface WalDamage {
  file: string;
  /** Where the damage starts, and how many bytes were skipped from there (to the next good record or the end). */
  offset: number;
  bytes: number;
  reason: string;
}

/** The torn tail of the last segment (a crash mid-write): cut off, or the whole segment removed when its header is torn (offset 0). */
export interface WalTornTail {
  file: string;
  offset: number;
  bytes: number;
}

export interface ReplayResult {
  /** What was damaged and skipped: the records in it are lost, every other record was replayed. */
  damaged: WalDamage[];
  /** The torn tail repaired (with readOnly: found, left as it is). */
  torn: WalTornTail | undefined;
  /** The checkpoint replayed, if any. */
  checkpoint: WalFileSize | undefined;
  /** The segments kept, ascending and without gaps. */
  segments: WalFileSize[];
  /** The number the next segment must have. */
  next: number;
}

/** One buffer grown to the largest file read, reused across files. */
class FileReader {
  private buf = Buffer.alloc(0);

  /** The whole file at `path`; the view is valid until the next read. */
  async read(path: string): Promise<Buffer> {
    const h = await open(path, 'r');
    try {
      const { size } = await h.stat();
      if (this.buf.byteLength < size) this.buf = Buffer.allocUnsafe(size);
      let got = 0;
      while (got < size) {
        const { bytesRead } = await h.read(this.buf, got, size - got, got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return this.buf.subarray(0, got);
    } finally {
      await h.close();
    }
  }
}

async function removeFile(path: string, log: WalLog, msg: string): Promise<void> {
  await rm(path, { force: true });
  log.info({ file: path }, msg);
}

async function truncateDurably(path: string, length: number): Promise<void> {
  const h = await open(path, 'r+');
  try {
    await h.truncate(length);
    await h.datasync();
  } finally {
    await h.close();
  }
}

/**
 * Replays the records of `buf` from `from`, skipping damage: a record that
 * fails its checks is logged and counted, and reading goes on at the next
 * whole record (nextRecordAfter). Unless `tornTailAt` takes it: a failure
 * a torn write explains, with no whole record after it, is left to the
 * caller (returned). Loss is bounded to the damaged bytes, where
 * Prometheus drops everything after the first corrupt record.
 */
function replayRecords(
  buf: Buffer, path: string, sink: (type: number, payload: Uint8Array) => void, damaged: WalDamage[], log: WalLog, tornTail: boolean, from = FILE_HEADER_BYTES,
): number | undefined {
  let off = from;
  for (;;) {
    const failure = scanRecords(buf, buf.byteLength, sink, off);
    if (failure === undefined) return undefined;
    const next = nextRecordAfter(buf, failure.offset, buf.byteLength);
    if (tornTail && failure.tornLike && next === undefined) return failure.offset;
    const end = next ?? buf.byteLength;
    const damage = { file: path, offset: failure.offset, bytes: end - failure.offset, reason: failure.reason };
    damaged.push(damage);
    log.warn(damage, next === undefined ? 'skipped a damaged WAL record and the rest of its file: no whole record follows' : 'skipped a damaged stretch of the WAL; replay goes on at the next whole record');
    if (next === undefined) return undefined;
    off = next;
  }
}

/** Replays checkpoint `n` at `path`; damage in it is skipped as in segments (it was written whole before its rename, so there is no torn tail). Returns its size. */
async function replayCheckpoint(reader: FileReader, path: string, n: number, sink: ReplaySink, damaged: WalDamage[], log: WalLog): Promise<number> {
  const buf = await reader.read(path);
  if (buf.byteLength < FILE_HEADER_BYTES) throw corruption(path, 0, `checkpoint of ${buf.byteLength} bytes is shorter than its header`);
  const problem = fileHeaderProblem(buf, KIND_CHECKPOINT, n);
  if (problem !== undefined) {
    damaged.push({ file: path, offset: 0, bytes: FILE_HEADER_BYTES, reason: problem });
    log.warn({ file: path, reason: problem }, 'the WAL checkpoint\'s header is damaged; its records are read all the same');
  }
  replayRecords(buf, path, (type, payload) => sink(type, payload, n - 1), damaged, log, false);
  return buf.byteLength;
}

/**
 * Replays segment `n` at `path`. Only the `last` one may be repaired: its
 * torn tail cut off, or the whole file removed when its header is torn.
 * Returns the segment's size afterwards, undefined if it was removed.
 */
async function replaySegment(
  reader: FileReader, path: string, n: number, last: boolean, log: WalLog, sink: ReplaySink, damaged: WalDamage[], torn: WalTornTail[], readOnly: boolean,
): Promise<number | undefined> {
  const buf = await reader.read(path);
  const problem = buf.byteLength < FILE_HEADER_BYTES
    ? `segment of ${buf.byteLength} bytes is shorter than its header`
    : fileHeaderProblem(buf, KIND_SEGMENT, n);
  if (problem !== undefined) {
    // Cut short, or all zeros: a crash right after the segment was created,
    // before it held a record. Anything else in a bad header is damage.
    if (last && (buf.byteLength < FILE_HEADER_BYTES || isZero(buf, 0, buf.byteLength))) {
      torn.push({ file: path, offset: 0, bytes: buf.byteLength });
      if (readOnly) return undefined;
      await rm(path);
      log.warn({ file: path, offset: 0, bytesDropped: buf.byteLength, reason: problem }, 'removed the last WAL segment: its header is torn');
      return undefined;
    }
    if (buf.byteLength < FILE_HEADER_BYTES) {
      damaged.push({ file: path, offset: 0, bytes: buf.byteLength, reason: problem });
      log.warn({ file: path, reason: problem }, 'skipped a WAL segment shorter than its header');
      return buf.byteLength;
    }
    damaged.push({ file: path, offset: 0, bytes: FILE_HEADER_BYTES, reason: problem });
    log.warn({ file: path, reason: problem }, 'a WAL segment\'s header is damaged; its records are read all the same');
  }
  const tornAt = replayRecords(buf, path, (type, payload) => sink(type, payload, n), damaged, log, last);
  if (tornAt === undefined) return buf.byteLength;
  torn.push({ file: path, offset: tornAt, bytes: buf.byteLength - tornAt });
  if (readOnly) return tornAt;
  await truncateDurably(path, tornAt);
  log.warn({ file: path, offset: tornAt, bytesDropped: buf.byteLength - tornAt }, 'truncated the torn tail of the last WAL segment');
  return tornAt;
}

/**
 * Replays the WAL in `dir` (created if missing) into `sink`: the newest
 * checkpoint's records, then every later segment's, each file in order.
 * Damage a torn write cannot explain is skipped and listed (`damaged`).
 * With `readOnly` nothing is changed (no torn tail cut, no leftover removed):
 * what `strata tsdb check` reads. `progress` is kept up to date as each
 * file ends, and a line per file is logged as Prometheus logs its replay
 * ("WAL segment loaded" segment=N maxSegment=M); it is marked finished
 * whether the replay succeeds or throws.
 */
export async function replayWalDir(
  dir: string, log: WalLog, sink: ReplaySink, opts: { readOnly?: boolean; progress?: ReplayProgress } = {},
): Promise<ReplayResult> {
  const progress = opts.progress ?? new ReplayProgress();
  try {
    return await replayFiles(dir, log, sink, opts.readOnly === true, progress);
  } finally {
    progress.finished = true;
  }
}

async function replayFiles(dir: string, log: WalLog, sink: ReplaySink, readOnly: boolean, progress: ReplayProgress): Promise<ReplayResult> {
  if (!readOnly) await mkdir(dir, { recursive: true });
  const listing = await listWalDir(dir);
  if (listing.others.length > 0) log.warn({ dir, files: listing.others }, 'unexpected files in the WAL directory, left alone');

  // What a crash left is removed only once replay succeeded: a failed open
  // changes no file, so an operator finds everything as it was.
  const leftovers: Array<[string, string]> = listing.temps.map((name) => [name, 'removed a checkpoint left unfinished by a crash']);
  const ckpt = listing.checkpoints.at(-1);
  for (const n of listing.checkpoints.slice(0, -1)) leftovers.push([checkpointName(n), 'removed a checkpoint older than the newest']);
  const live: number[] = [];
  for (const n of listing.segments) {
    if (ckpt !== undefined && n < ckpt) leftovers.push([segmentName(n), 'removed a segment the checkpoint covers']);
    else live.push(n);
  }

  const damaged: WalDamage[] = [];
  const torn: WalTornTail[] = [];
  let expected = ckpt ?? 0;
  for (const n of live) {
    if (n !== expected) {
      // Records of missing segments are lost; those of the others are not.
      const reason = missingSegmentsReason(expected, n - 1);
      damaged.push({ file: join(dir, segmentName(expected)), offset: 0, bytes: 0, reason });
      log.warn({ dir, from: expected, to: n - 1 }, `WAL segments are missing; replay goes on without them: ${reason}`);
    }
    expected = n + 1;
  }

  const maxSegment = live.at(-1) ?? -1;
  progress.segmentsTotal = (ckpt === undefined ? 0 : 1) + live.length;
  if (progress.segmentsTotal > 0) log.info({ dir, checkpoint: ckpt ?? -1, maxSegment, files: progress.segmentsTotal }, 'replaying the WAL, this may take a while');
  const reader = new FileReader();
  let checkpoint: WalFileSize | undefined;
  let started = performance.now();
  /** Counts a file as done and logs it, with how long it took since the last one. */
  const fileDone = (o: object, msg: string): void => {
    progress.segmentsDone++;
    const now = performance.now();
    log.info({ ...o, done: progress.segmentsDone, total: progress.segmentsTotal, ms: Math.round(now - started) }, msg);
    started = now;
  };
  if (ckpt !== undefined) {
    checkpoint = { n: ckpt, bytes: await replayCheckpoint(reader, join(dir, checkpointName(ckpt)), ckpt, sink, damaged, log) };
    fileDone({ checkpoint: ckpt }, 'WAL checkpoint loaded');
  }

  const segments: WalFileSize[] = [];
  let next = ckpt ?? 0;
  for (const [i, n] of live.entries()) {
    const bytes = await replaySegment(reader, join(dir, segmentName(n)), n, i === live.length - 1, log, sink, damaged, torn, readOnly);
    fileDone({ segment: n, maxSegment }, 'WAL segment loaded');
    if (bytes === undefined) break; // the last segment, removed: its number is free again
    segments.push({ n, bytes });
    next = n + 1;
  }
  if (!readOnly) for (const [name, msg] of leftovers) await removeFile(join(dir, name), log, msg);
  return { damaged, torn: torn[0], checkpoint, segments, next };
}
