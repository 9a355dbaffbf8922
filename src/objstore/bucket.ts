/**
 * An object store bucket, as Thanos' objstore.Bucket: flat object names
 * with `/` as the directory separator, whole-object writes that are atomic
 * (a reader sees the old object, the new one, or none; never part of one).
 *
 * Implementations: FILESYSTEM (./filesystem.ts) and S3 (./s3.ts); made from
 * Thanos' bucket configuration by `openBucket` (./config.ts).
 */
export interface Bucket {
  /** What the bucket is, for logs: e.g. `FILESYSTEM /data/bucket` or `S3 bucket@endpoint`. */
  readonly name: string;
  /** Uploads the local file at `path` as object `name` (replacing it). Large files go in parts where the store supports it. */
  uploadFile(name: string, path: string): Promise<void>;
  /** Uploads `bytes` as object `name` (replacing it). */
  upload(name: string, bytes: Uint8Array): Promise<void>;
  /** The object's bytes; throws an error whose `notFound` is true when there is none. */
  get(name: string): Promise<Buffer>;
  /** Whether object `name` exists. */
  exists(name: string): Promise<boolean>;
  /** Size in bytes of object `name`; throws (notFound) when there is none. */
  size(name: string): Promise<number>;
  /**
   * Names directly under `dir` (`''` for the top), as Thanos' Iter without
   * recursion: objects by their full name, "directories" by their full
   * name ending in `/`; with `recursive`, every object under `dir`.
   */
  iter(dir: string, opts?: { recursive?: boolean }): Promise<string[]>;
  /** Deletes object `name`; deleting an object that is not there is no error. */
  delete(name: string): Promise<void>;
  /**
   * Removes what interrupted uploads left under `dir` (recursively), for a
   * writer that owns `dir` and is about to write it again. FILESYSTEM: its
   * temporary files. Stores whose partial uploads are invisible (S3: parts
   * of an unfinished multipart upload) need not implement it.
   */
  dropPartial?(dir: string): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** The error a bucket throws for a missing object. */
export class ObjectNotFoundError extends Error {
  override readonly name = 'ObjectNotFoundError';
  readonly notFound = true;
  constructor(readonly object: string, bucket: string) {
    super(`${bucket}: object ${JSON.stringify(object)} does not exist`);
  }
}

/** Whether `err` says an object does not exist. */
export function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { notFound?: unknown }).notFound === true;
}
