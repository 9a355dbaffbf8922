/**
 * Background compaction (docs/format/records.md, "Compaction"): rewrites a
 * run of sealed segments with only what is still needed, in slices that
 * give the event loop back often, then swaps the files crash-safely.
 */
import { closeSync, openSync, renameSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CompactionWriter } from './compaction-writer.js';
import { corrupt } from './errors.js';
import { FLAG_COMPACTED, HEADER_SIZE, segmentFileName, TEMP_SUFFIX } from './format.js';
import { frameRead, readFrame } from './frame.js';
import { encodeHeader, type SegmentHeader } from './header.js';
import { syncFd } from '../files/durable.js';
import { mapFile } from '../files/mmap.js';
import { decodeOps } from './ops-codec.js';
import type { ResolvedOptions } from './options.js';
import type { RecordIndex } from './record-index.js';
import { Segment } from './segment.js';

/** Input bytes or milliseconds of work between yields to the event loop. */
const SLICE_BYTES = 1024 * 1024;
const SLICE_MS = 4;
/** Index entries repointed per slice. */
const INSTALL_SLICE = 4096;

/** What a compaction needs from the store. */
export interface CompactionHost {
  readonly dir: string;
  readonly opts: ResolvedOptions;
  readonly index: RecordIndex;
  /** All segments in replay order, the active one last (compaction splices it). */
  readonly segments: Segment[];
  /** A new, unused file number. */
  allocateNum(): number;
  /** Resolves once every write made so far is durable. */
  barrier(): Promise<void>;
  /** fsyncs the records directory. */
  syncDir(): Promise<void>;
  /** True once close() began: an unfinished output is abandoned. */
  readonly closing: boolean;
}

/** Whether a sealed segment is worth rewriting; `oldest`: first in replay order. */
export function worthCompacting(seg: Segment, oldest: boolean, ratio: number): boolean {
  // Kept deletes become garbage once no older segment is left.
  const dead = seg.deadBytes + (oldest ? seg.tombstoneBytes : 0);
  return dead > 0 && dead >= ratio * seg.opBytes;
}

/**
 * The next run of segments to rewrite: from the first sealed segment worth
 * it, extended over the following sealed segments while their live bytes
 * fit in one segment (so small outputs merge). Undefined when none is.
 */
export function pickWindow(segments: readonly Segment[], ratio: number, segmentBytes: number): Segment[] | undefined {
  let sealed = 0;
  while (sealed < segments.length && segments[sealed]!.sealed) sealed++;
  let start = 0;
  while (start < sealed && !worthCompacting(segments[start]!, start === 0, ratio)) start++;
  if (start === sealed) return undefined;
  const window = [segments[start]!];
  let live = segments[start]!.liveBytes;
  for (let i = start + 1; i < sealed && live + segments[i]!.liveBytes <= segmentBytes; i++) {
    window.push(segments[i]!);
    live += segments[i]!.liveBytes;
  }
  return window;
}

/**
 * Rewrites `window` (contiguous sealed segments) as one compaction output,
 * or deletes it when nothing in it is still needed. Resolves false when
 * abandoned because the store is closing.
 */
export async function compactWindow(host: CompactionHost, window: Segment[]): Promise<boolean> {
  const { dir, opts, index } = host;
  const dropTombstones = host.segments[0] === window[0];
  const header: SegmentHeader = {
    flags: FLAG_COMPACTED,
    num: host.allocateNum(),
    first: window[0]!.header.first,
    last: window[window.length - 1]!.header.last,
    lastIds: index.lastIds(),
  };
  const path = join(dir, segmentFileName(header.num));
  const temp = path + TEMP_SUFFIX;
  const fd = openSync(temp, 'wx', 0o644);
  let writer: CompactionWriter;
  let size: number;
  try {
    try {
      writer = new CompactionWriter(fd, encodeHeader(header));
      if (!(await copyLive(host, window, writer, dropTombstones))) {
        unlinkSync(temp);
        return false;
      }
      size = writer.finish();
      await syncFd(fd);
    } finally {
      closeSync(fd);
    }
    // Ops that superseded what was dropped must be durable before the old
    // files stop counting, or a crash could lose both the old and the new.
    await host.barrier();
  } catch (err) {
    unlinkSync(temp);
    throw err;
  }
  await opts.onCompactionStep?.('written');
  if (writer.empty) {
    unlinkSync(temp);
    removeSegments(host, window, undefined);
    await host.syncDir();
    await opts.onCompactionStep?.('installed');
    return true;
  }
  renameSync(temp, path);
  await host.syncDir();
  await opts.onCompactionStep?.('renamed');
  const outFd = openSync(path, 'r');
  const out = new Segment(path, header, outFd, mapFile(outFd, size), size);
  out.closeFd();
  out.sealed = true;
  out.opBytes = writer.opBytes;
  out.tombstoneBytes = writer.tombstoneBytes;
  await repoint(host, writer, out);
  removeSegments(host, window, out);
  await opts.onCompactionStep?.('installed');
  return true;
}

/** Copies what `window` still needs into `writer`; false if abandoned. */
async function copyLive(host: CompactionHost, window: Segment[], writer: CompactionWriter, dropTombstones: boolean): Promise<boolean> {
  const { index } = host;
  // A key deleted twice in the window needs one delete kept, not two.
  const keptDeletes = index.collections.map(() => new Set<number>());
  const fr = frameRead();
  let sliceStart = performance.now();
  let sliceBytes = 0;
  for (const seg of window) {
    const map = seg.map;
    const visit = (code: number, put: boolean, id: number, valueAt: number, len: number): void => {
      const c = index.of(code);
      const loc = c.byId.get(id);
      if (put) {
        if (loc !== undefined && loc.seg === seg && loc.at === valueAt) writer.put(code, id, map, valueAt, len, loc);
      } else if (!dropTombstones && loc === undefined && !keptDeletes[code - 1]!.has(id)) {
        keptDeletes[code - 1]!.add(id);
        writer.delete(code, id);
      }
    };
    for (let pos = HEADER_SIZE; pos < seg.size; pos = fr.payloadEnd) {
      if (readFrame(map, pos, seg.size, fr).status !== 'ok') throw corrupt(seg.path, pos, `unreadable frame (${fr.status}) while compacting`);
      const problem = decodeOps(map, fr.payloadStart, fr.payloadEnd, visit);
      if (problem !== undefined) throw corrupt(seg.path, pos, `bad record payload while compacting: ${problem}`);
      sliceBytes += fr.payloadEnd - pos;
      if (sliceBytes >= SLICE_BYTES || performance.now() - sliceStart >= SLICE_MS) {
        await nextTurn();
        if (host.closing) return false;
        sliceStart = performance.now();
        sliceBytes = 0;
      }
    }
  }
  return true;
}

/**
 * Points the index at the copies. Between slices both copies are valid
 * and hold the same bytes, so readers may see either. A value superseded
 * meanwhile is not repointed: its copy is dead weight in the output.
 */
async function repoint(host: CompactionHost, writer: CompactionWriter, out: Segment): Promise<void> {
  const { locs, codes, ids, sizes, newAt } = writer;
  for (let i = 0; i < locs.length; i++) {
    const loc = locs[i]!;
    if (host.index.of(codes[i]!).byId.get(ids[i]!) === loc) {
      loc.seg = out;
      loc.at = newAt[i]!;
    } else {
      out.deadBytes += sizes[i]!;
    }
    if ((i + 1) % INSTALL_SLICE === 0) await nextTurn();
  }
}

/**
 * Drops the window from the segment list (putting `out` in its place) and
 * deletes its files, oldest first: should a crash stop this half way, what
 * is left is a suffix, and nothing in it depends on what went.
 */
function removeSegments(host: CompactionHost, window: Segment[], out: Segment | undefined): void {
  const at = host.segments.indexOf(window[0]!);
  host.segments.splice(at, window.length, ...(out ? [out] : []));
  for (const seg of window) {
    unlinkSync(seg.path);
    host.opts.logger.info({ file: seg.path, into: out?.path ?? null }, 'records: compacted away a segment');
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
