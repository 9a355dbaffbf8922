import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeMeta } from '../blocks/meta.js';
import type { BlockMeta, ThanosMeta } from '../blocks/types.js';
import type { Bucket } from '../objstore/bucket.js';
import { FileLanes, type FileUpload } from './upload-files.js';

/** What Thanos' shipper stamps on a block it uploads. */
export interface ShipLabels {
  /** External labels, the tenant's included: the block's identity in the bucket. */
  labels: Record<string, string>;
  /** Thanos' source type: `receive` for Strata's own blocks, `sidecar` beside a Prometheus. */
  source: string;
}

/** How uploadBlock fits into a pass of several blocks. */
export interface UploadBlockOptions {
  now?: Date;
  /** Called when the block's data is up and its meta.json is next (tests stop the process there). */
  beforeMeta?: () => void;
  /** Lanes shared with the other blocks of the pass (the shipper's files in flight over all); else lanes of its own (BLOCK_FILES_IN_FLIGHT). */
  lanes?: FileLanes;
  /** The block before's upload: this meta.json goes only after that one's, and not at all if it failed. */
  after?: Promise<unknown>;
}

/** The error of a block whose data went up but whose meta.json was held back: the block before it failed. */
export function blockHeldBack(ulid: string): Error {
  return Object.assign(new Error(`block ${ulid}: meta.json not uploaded, as the block before it failed`), { heldBack: true });
}

/** Whether `err` is blockHeldBack's. */
export function isHeldBack(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { heldBack?: unknown }).heldBack === true;
}

/**
 * Uploads the block in `dir` to `bucket` in Thanos' layout, as Thanos'
 * shipper and block.Upload do: `<ULID>/chunks/...` and `<ULID>/index`,
 * then `<ULID>/meta.json` last, once every other file is up, so that a
 * reader never sees a block without its data. The data files go up over
 * `lanes`, several at a time: their order does not matter, since nothing
 * reads a block before its meta.json. (Thanos sends them one by one by
 * default; with --shipper.upload-concurrency its chunk files go several
 * at a time, the index after them.) The uploaded meta.json is
 * the local one with the Thanos section filled in: labels, source,
 * segment_files, files with sizes, upload_time. Tombstones are not
 * uploaded (Thanos does not). With `after`, the data goes up while the
 * block before finishes, but meta.json waits for that block's: blocks
 * still appear in the bucket in the order they are shipped. Returns the
 * bytes uploaded.
 */
export async function uploadBlock(
  bucket: Bucket, dir: string, meta: BlockMeta, ship: ShipLabels, opts: UploadBlockOptions = {},
): Promise<number> {
  const labels = { ...(meta.thanos?.labels ?? {}), ...ship.labels };
  if (Object.keys(labels).length === 0) throw new Error(`block ${meta.ulid}: empty external labels are not allowed for a Thanos block`);
  // An upload of this block cut short (kill -9) may have left partial files.
  await bucket.dropPartial?.(meta.ulid);
  const segments = (await readdir(join(dir, 'chunks'))).filter((f) => /^\d{6}$/.test(f)).sort();
  const files: NonNullable<ThanosMeta['files']> = [];
  const data: FileUpload[] = [];
  let bytes = 0;
  for (const rel of [...segments.map((f) => `chunks/${f}`), 'index']) {
    const path = join(dir, rel);
    const size = (await stat(path)).size;
    files.push({ rel_path: rel, size_bytes: size });
    data.push({ name: `${meta.ulid}/${rel}`, path });
    bytes += size;
  }
  await (opts.lanes ?? new FileLanes(bucket)).run(data);
  if (opts.after !== undefined) {
    try {
      await opts.after;
    } catch {
      throw blockHeldBack(meta.ulid);
    }
  }
  files.push({ rel_path: 'meta.json' });
  files.sort((a, b) => (a.rel_path < b.rel_path ? -1 : a.rel_path > b.rel_path ? 1 : 0));
  const thanos: ThanosMeta = {
    labels,
    downsample: { resolution: meta.thanos?.downsample.resolution ?? 0 },
    source: ship.source,
    segment_files: segments,
    files,
    upload_time: goTime(opts.now ?? new Date()),
  };
  const body = Buffer.from(encodeMeta({ ...meta, thanos }), 'utf8');
  opts.beforeMeta?.();
  await bucket.upload(`${meta.ulid}/meta.json`, body);
  return bytes + body.length;
}

/** A time as Go's time.Time marshals to JSON in UTC (RFC 3339, fraction without trailing zeros). */
function goTime(d: Date): string {
  const iso = d.toISOString(); // 2026-11-25T10:30:00.123Z
  return iso.replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac === '' ? 'Z' : `.${frac}Z`));
}
