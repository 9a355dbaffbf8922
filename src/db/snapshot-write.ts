import { open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Head } from '../head/head.js';
import type { Series } from '../head/series.js';
import { syncDir } from '../files/durable.js';
import type { ChunkFileRecord } from '../chunks/known-files.js';
import { chunksPayload } from './snapshot-chunks.js';
import {
  META_WORDS, SECTION_CHUNKS, SECTION_HEADER_BYTES, SECTION_META, SECTION_POSTINGS, SECTION_SERIES, SNAPSHOT_HEADER_BYTES, SNAPSHOT_MAGIC,
  SNAPSHOT_VERSION, align8, frameSection, isSnapshotFile, sectionBytes, snapshotName,
} from './snapshot-format.js';

/** What a snapshot write did, for the log. */
export interface SnapshotWritten {
  name: string;
  series: number;
  bytes: number;
}

/**
 * Writes the head snapshot for WAL position (`segment`, 0) into `dir`
 * (docs/format/head-snapshot.md): to a temporary name, fsynced, renamed,
 * the directory fsynced; then every other snapshot file is deleted. Call
 * it with the head still (a closing engine), after checkpoint `segment`
 * and the chunk files are durable: the snapshot stands for exactly that
 * state. A crash at any moment leaves the old snapshot or the new one,
 * never a file taken for one that is not whole (the reader checks CRCs).
 * With `chunkFiles` (ChunkSegments.files(), and where the blocks end) it
 * records them and each series' chunk list too (CHUNKS), so the next
 * start need not scan them.
 */
export async function writeHeadSnapshot(dir: string, head: Head, segment: number, chunkFiles?: { files: ChunkFileRecord[]; floor: number }): Promise<SnapshotWritten> {
  const file = buildSnapshot(head, segment, chunkFiles);
  const name = snapshotName(segment, 0);
  const path = join(dir, name);
  const tmp = `${path}.tmp`;
  try {
    const handle = await open(tmp, 'w', 0o666);
    try {
      await handle.writeFile(file);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
  await syncDir(dir);
  await deleteSnapshotsBut(dir, name);
  return { name, series: head.seriesCount, bytes: file.length };
}

/** Deletes every snapshot file in `dir` (temporary ones included) but `keep`. */
export async function deleteSnapshotsBut(dir: string, keep: string | undefined): Promise<number> {
  let n = 0;
  for (const f of await readdir(dir)) {
    if (!isSnapshotFile(f) || f === keep) continue;
    await rm(join(dir, f), { force: true, recursive: true });
    n++;
  }
  return n;
}

/** The whole file in one buffer (written once; the engine is closing). */
function buildSnapshot(head: Head, segment: number, chunkFiles: { files: ChunkFileRecord[]; floor: number } | undefined): Buffer {
  const series: Series[] = [...head.all()];
  const n = series.length;
  let labelBytes = 0;
  let nextId = 1;
  for (const s of series) {
    labelBytes += head.labelBytesLength(s);
    nextId = s.id + 1;
  }
  const columns = seriesColumns(n);
  const seriesLen = columns.labelsAt + labelBytes;
  const postings = postingsPayload(head);
  const chunks = chunkFiles === undefined ? undefined : chunksPayload(series, chunkFiles.files, chunkFiles.floor);
  const total = SNAPSHOT_HEADER_BYTES + sectionBytes(4 * META_WORDS) + sectionBytes(seriesLen) + sectionBytes(postings.bytes.length)
    + (chunks === undefined ? 0 : sectionBytes(chunks.length));
  const buf = Buffer.alloc(total);
  buf.writeUInt32BE(SNAPSHOT_MAGIC, 0);
  buf[4] = SNAPSHOT_VERSION;
  let at = SNAPSHOT_HEADER_BYTES;

  const meta = at + SECTION_HEADER_BYTES;
  [segment, 0, n, Math.max(nextId, 1), postings.values].forEach((w, i) => buf.writeUInt32LE(w, meta + 4 * i));
  at = frameSection(buf, at, SECTION_META, 4 * META_WORDS);

  const p = at + SECTION_HEADER_BYTES;
  const ab = buf.buffer;
  const base = buf.byteOffset + p;
  const ids = new Uint32Array(ab, base + columns.idsAt, n);
  const offs = new Uint32Array(ab, base + columns.offsAt, n + 1);
  const lastRef = new Float64Array(ab, base + columns.lastRefAt, n);
  const newestT = new Float64Array(ab, base + columns.newestTAt, n);
  const newestV = new Uint32Array(ab, base + columns.newestVAt, 2 * n);
  let off = 0;
  for (let i = 0; i < n; i++) {
    const s = series[i]!;
    ids[i] = s.id;
    offs[i] = off;
    off += head.copyLabelBytes(s, buf, p + columns.labelsAt + off);
    const c = s.chunks;
    lastRef[i] = c.length === 0 ? -1 : c[c.length - 3]!;
    head.newestInto(s, newestT, newestV, i);
  }
  offs[n] = off;
  at = frameSection(buf, at, SECTION_SERIES, seriesLen);

  buf.set(postings.bytes, at + SECTION_HEADER_BYTES);
  at = frameSection(buf, at, SECTION_POSTINGS, postings.bytes.length);
  if (chunks !== undefined) {
    buf.set(chunks, at + SECTION_HEADER_BYTES);
    frameSection(buf, at, SECTION_CHUNKS, chunks.length);
  }
  return buf;
}

/** Byte offsets of the SERIES section's columns for `n` series (each 8-aligned; the label bytes last). */
export function seriesColumns(n: number): { idsAt: number; offsAt: number; lastRefAt: number; newestTAt: number; newestVAt: number; labelsAt: number } {
  const idsAt = 0;
  const offsAt = align8(4 * n);
  const lastRefAt = offsAt + align8(4 * (n + 1));
  const newestTAt = lastRefAt + 8 * n;
  const newestVAt = newestTAt + 8 * n;
  return { idsAt, offsAt, lastRefAt, newestTAt, newestVAt, labelsAt: newestVAt + 8 * n };
}

/**
 * The POSTINGS payload: each label name as [UTF-8 length u32][number of
 * its values u32][bytes, zeros to 4], followed by its values, each as
 * [length u32][number of ids u32][bytes, zeros to 4][ids u32, ascending].
 */
function postingsPayload(head: Head): { bytes: Buffer; values: number } {
  const parts: Buffer[] = [];
  let values = 0;
  let name: string | undefined;
  let nameEntry: Buffer | undefined;
  let count = 0;
  head.index.forEachPostings((nm, value, ids) => {
    if (nm !== name) {
      nameEntry?.writeUInt32LE(count, 4);
      name = nm;
      nameEntry = entry(nm, 0);
      parts.push(nameEntry);
      count = 0;
    }
    count++;
    values++;
    // A copy: the view is valid during the call only.
    parts.push(entry(value, ids.length), Buffer.from(new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength)));
  });
  nameEntry?.writeUInt32LE(count, 4);
  return { bytes: Buffer.concat(parts), values };
}

/** A string framed as [UTF-8 length u32][`count` u32][bytes, zeros to 4]. */
function entry(text: string, count: number): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const out = Buffer.alloc(8 + ((bytes.length + 3) & ~3));
  out.writeUInt32LE(bytes.length, 0);
  out.writeUInt32LE(count, 4);
  bytes.copy(out, 8);
  return out;
}
