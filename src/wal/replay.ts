/**
 * Start-up: clean what a crash left, check the sequence of files, read the
 * newest checkpoint and every segment after it, and cut a torn tail off
 * the last segment. The rules are in docs/format/wal.md.
 */
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isZero } from '../encoding/bytes.js';
import { corruption, missingSegments } from './errors.js';
import { listWalDir } from './dir.js';
import { FILE_HEADER_BYTES, KIND_CHECKPOINT, KIND_SEGMENT, checkpointName, segmentName } from './format.js';
import { fileHeaderProblem } from './frame.js';
import type { WalLog } from './options.js';
import { scanRecords } from './scan.js';

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

export interface ReplayResult {
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

/** Replays checkpoint `n` at `path`, strictly: it was written whole before its rename. Returns its size. */
async function replayCheckpoint(reader: FileReader, path: string, n: number, sink: ReplaySink): Promise<number> {
  const buf = await reader.read(path);
  if (buf.byteLength < FILE_HEADER_BYTES) throw corruption(path, 0, `checkpoint of ${buf.byteLength} bytes is shorter than its header`);
  const problem = fileHeaderProblem(buf, KIND_CHECKPOINT, n);
  if (problem !== undefined) throw corruption(path, 0, problem);
  const failure = scanRecords(buf, buf.byteLength, (type, payload) => sink(type, payload, n - 1));
  if (failure !== undefined) throw corruption(path, failure.offset, failure.reason);
  return buf.byteLength;
}

/**
 * Replays segment `n` at `path`. Only the `last` one may be repaired: its
 * torn tail cut off, or the whole file removed when its header is torn.
 * Returns the segment's size afterwards, undefined if it was removed.
 */
async function replaySegment(
  reader: FileReader, path: string, n: number, last: boolean, log: WalLog, sink: ReplaySink,
): Promise<number | undefined> {
  const buf = await reader.read(path);
  const problem = buf.byteLength < FILE_HEADER_BYTES
    ? `segment of ${buf.byteLength} bytes is shorter than its header`
    : fileHeaderProblem(buf, KIND_SEGMENT, n);
  if (problem !== undefined) {
    // Cut short, or all zeros: a crash right after the segment was created,
    // before it held a record. Anything else in a bad header is damage.
    if (last && (buf.byteLength < FILE_HEADER_BYTES || isZero(buf, 0, buf.byteLength))) {
      await rm(path);
      log.warn({ file: path, offset: 0, bytesDropped: buf.byteLength, reason: problem }, 'removed the last WAL segment: its header is torn');
      return undefined;
    }
    throw corruption(path, 0, problem);
  }
  const failure = scanRecords(buf, buf.byteLength, (type, payload) => sink(type, payload, n));
  if (failure === undefined) return buf.byteLength;
  if (!last || !failure.tornLike) throw corruption(path, failure.offset, failure.reason);
  await truncateDurably(path, failure.offset);
  log.warn(
    { file: path, offset: failure.offset, bytesDropped: buf.byteLength - failure.offset, reason: failure.reason },
    'truncated the torn tail of the last WAL segment',
  );
  return failure.offset;
}

/**
 * Replays the WAL in `dir` (created if missing) into `sink`: the newest
 * checkpoint's records, then every later segment's, each file in order.
 * Throws WalCorruptionError on damage a torn write cannot explain.
 */
export async function replayWalDir(dir: string, log: WalLog, sink: ReplaySink): Promise<ReplayResult> {
  await mkdir(dir, { recursive: true });
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

  let expected = ckpt ?? 0;
  for (const n of live) {
    if (n !== expected) throw missingSegments(join(dir, segmentName(n)), expected, n - 1);
    expected = n + 1;
  }

  const reader = new FileReader();
  let checkpoint: WalFileSize | undefined;
  if (ckpt !== undefined) checkpoint = { n: ckpt, bytes: await replayCheckpoint(reader, join(dir, checkpointName(ckpt)), ckpt, sink) };

  const segments: WalFileSize[] = [];
  let next = ckpt ?? 0;
  for (const [i, n] of live.entries()) {
    const bytes = await replaySegment(reader, join(dir, segmentName(n)), n, i === live.length - 1, log, sink);
    if (bytes === undefined) break; // the last segment, removed: its number is free again
    segments.push({ n, bytes });
    next = n + 1;
  }
  for (const [name, msg] of leftovers) await removeFile(join(dir, name), log, msg);
  return { checkpoint, segments, next };
}
