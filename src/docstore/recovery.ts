/**
 * Opening a records directory: clean up what a crash left, replay every
 * segment in order into the index, cut a torn tail off the last one
 * (docs/format/records.md, "Recovery").
 */
import { closeSync, fdatasyncSync, fstatSync, ftruncateSync, openSync, readdirSync, readSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { corrupt } from './errors.js';
import { HEADER_SIZE, parseSegmentFileName, TEMP_SUFFIX } from './format.js';
import { isZero, nonZeroEnd } from '../encoding/bytes.js';
import { frameRead, hasFrameIn, readFrame, type FrameRead, type FrameStatus } from './frame.js';
import { decodeHeader, type SegmentHeader } from './header.js';
import { mapFile } from '../files/mmap.js';
import type { ResolvedOptions } from './options.js';
import { decodeOps } from './ops-codec.js';
import type { RecordIndex } from './record-index.js';
import { Segment } from './segment.js';

/** What recovery hands the store. */
export interface Recovered {
  /** In replay order; all sealed but possibly the last, which is then active. */
  segments: Segment[];
  /** Highest file number seen (0 for an empty directory). */
  maxNum: number;
}

interface Found {
  path: string;
  header: SegmentHeader;
  fd: number;
  fileSize: number;
}

/** Rebuilds `index` from the segments in `dir`. Throws RecordsCorruptError. */
export function recover(dir: string, opts: ResolvedOptions, index: RecordIndex): Recovered {
  const { found, maxNum } = listSegments(dir, opts);
  const live = dropCovered(found, opts);
  live.sort((a, b) => a.header.first - b.header.first);
  for (let i = 1; i < live.length; i++) {
    const prev = live[i - 1]!;
    if (prev.header.last >= live[i]!.header.first) {
      throw corrupt(live[i]!.path, 0, `its segments overlap those of ${prev.path}`);
    }
  }
  const segments: Segment[] = [];
  index.beginBulk();
  try {
    live.forEach((f, i) => segments.push(replay(f, i === live.length - 1, opts, index)));
  } catch (err) {
    for (const f of live) if (f.fd >= 0) closeSync(f.fd);
    throw err;
  }
  index.endBulk();
  return { segments, maxNum };
}

/** Reads every segment header; removes unfinished compaction outputs and empty torn files. */
function listSegments(dir: string, opts: ResolvedOptions): { found: Found[]; maxNum: number } {
  const found: Found[] = [];
  let maxNum = 0;
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (name.endsWith(TEMP_SUFFIX)) {
      unlinkSync(path);
      opts.logger.warn({ file: path }, 'records: removed an unfinished compaction output');
      continue;
    }
    const num = parseSegmentFileName(name);
    if (num === undefined) {
      opts.logger.warn({ file: path }, 'records: ignoring a file that is not a record segment');
      continue;
    }
    maxNum = Math.max(maxNum, num);
    const fd = openSync(path, 'r');
    const fileSize = fstatSync(fd).size;
    const head = Buffer.alloc(HEADER_SIZE);
    readSync(fd, head, 0, HEADER_SIZE, 0);
    const header = fileSize >= HEADER_SIZE ? decodeHeader(head) : 'shorter than a header';
    if (typeof header === 'string') {
      // A file made but never synced can lose its header; if nothing
      // follows it, no record in it was ever acknowledged.
      const empty = fileSize <= HEADER_SIZE || isZero(mapFile(fd, fileSize), HEADER_SIZE, fileSize);
      closeSync(fd);
      if (!empty) throw corrupt(path, 0, header);
      unlinkSync(path);
      opts.logger.warn({ file: path, reason: header }, 'records: removed a segment whose header was never written');
      continue;
    }
    if (header.num !== num) {
      closeSync(fd);
      throw corrupt(path, 0, `its header says it is file ${header.num}`);
    }
    found.push({ path, header, fd, fileSize });
  }
  return { found, maxNum };
}

/**
 * Removes segments that a newer compaction output covers: a crash came
 * after the output was renamed into place but before they were deleted.
 */
function dropCovered(found: Found[], opts: ResolvedOptions): Found[] {
  const covers = (y: SegmentHeader, x: SegmentHeader): boolean =>
    y.num > x.num && y.first <= x.first && x.last <= y.last;
  return found.filter((f) => {
    const by = found.find((o) => covers(o.header, f.header));
    if (by === undefined) return true;
    closeSync(f.fd);
    unlinkSync(f.path);
    opts.logger.info({ file: f.path, coveredBy: by.path }, 'records: removed a segment a compaction had replaced');
    return false;
  });
}

/** Replays one segment into the index; returns it sealed, or active if last. */
function replay(f: Found, isLast: boolean, opts: ResolvedOptions, index: RecordIndex): Segment {
  const seg = new Segment(f.path, f.header, f.fd, mapFile(f.fd, f.fileSize), HEADER_SIZE);
  index.raiseLastIds(f.header.lastIds);
  const { end, torn } = scan(seg, f.fileSize, isLast, index);
  seg.size = end;
  if (torn) {
    opts.logger.warn({ file: f.path, offset: end, bytes: f.fileSize - end }, 'records: truncated a torn tail');
  }
  const activate = isLast && !seg.compacted && end < opts.segmentBytes;
  if (end === f.fileSize && !activate) {
    seg.sealed = true;
    seg.closeFd();
    f.fd = -1;
    return seg;
  }
  // Cut the file to its data (a torn tail, or the zero tail of a file
  // preallocated by an earlier version); the active segment's map is larger
  // than the file (segment.ts).
  closeSync(f.fd);
  const fd = openSync(f.path, 'r+');
  f.fd = fd;
  seg.fd = fd;
  if (end < f.fileSize) ftruncateSync(fd, end);
  fdatasyncSync(fd);
  seg.map = mapFile(fd, activate ? opts.segmentBytes : end);
  if (!activate) {
    seg.sealed = true;
    seg.closeFd();
    f.fd = -1;
  }
  return seg;
}

/** Applies the segment's records to the index; returns where its data ends. */
function scan(seg: Segment, fileSize: number, isLast: boolean, index: RecordIndex): { end: number; torn: boolean } {
  const map = seg.map;
  const fr = frameRead();
  const visit = (code: number, put: boolean, id: number, valueAt: number, len: number, size: number): void => {
    if (put) index.put(code, id, seg, valueAt, len, size);
    else index.delete(code, id, seg, size);
  };
  for (let pos = HEADER_SIZE; ; pos = fr.payloadEnd) {
    readFrame(map, pos, fileSize, fr);
    if (fr.status === 'ok') {
      const problem = decodeOps(map, fr.payloadStart, fr.payloadEnd, visit);
      if (problem !== undefined) throw corrupt(seg.path, pos, `bad record payload: ${problem}`);
      continue;
    }
    if (fr.status === 'end' || (fr.status === 'zero' && isZero(map, pos, fileSize))) return { end: pos, torn: false };
    if (isLast && isTornTail(map, pos, fileSize, fr)) return { end: pos, torn: true };
    throw corrupt(seg.path, pos, problems[fr.status]);
  }
}

/**
 * A bad frame at `pos` of the last segment is a torn write only if nothing
 * that could be a record follows it: the bytes past its claimed end are all
 * zero, and no frame with a good checksum starts inside its claimed span
 * (which guards against a damaged length that swallows good records).
 */
function isTornTail(map: Buffer, pos: number, fileSize: number, fr: FrameRead): boolean {
  // An impossible length cannot be trusted to say where the frame ends: like a
  // frame running past the end, it is torn only if no good frame follows.
  const claimedEnd = fr.status === 'bad-crc' ? fr.payloadEnd
    : fr.status === 'past-end' || fr.status === 'short' || fr.status === 'bad-length' ? fileSize
    : Math.min(fr.payloadStart, fileSize);
  if (!isZero(map, claimedEnd, fileSize)) return false;
  return !hasFrameIn(map, pos + 1, nonZeroEnd(map, pos + 1, claimedEnd), fileSize);
}

const problems: Record<FrameStatus, string> = {
  ok: 'no problem',
  end: 'no problem',
  zero: 'zero bytes followed by data',
  short: 'incomplete frame header at the end of the file',
  'bad-length': 'frame length is 0 or beyond the limit',
  'past-end': 'frame runs past the end of the file',
  'bad-crc': 'checksum mismatch',
};
