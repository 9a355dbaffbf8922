import type { Bucket } from '../objstore/bucket.js';

/**
 * Data files of one block in flight at once. Two: while one file's upload
 * waits on its first part (read and hashed before anything is sent) or on
 * CompleteMultipartUpload, the other keeps the connection busy. Each S3
 * upload holds at most two part buffers, so the shipper holds at most four
 * (64 MiB with minio's 16 MiB parts for files under part_size).
 */
export const BLOCK_FILES_IN_FLIGHT = 2;

/** One local file and the object it becomes. */
export interface FileUpload {
  name: string;
  path: string;
}

/**
 * Uploads `files` with at most `inFlight` at once, started in the order
 * given. Resolves once all are up; on the first failure starts no more,
 * waits for those in flight (so that nothing is still writing when the
 * caller goes on) and throws that first error.
 */
export async function uploadFiles(bucket: Bucket, files: readonly FileUpload[], inFlight = BLOCK_FILES_IN_FLIGHT): Promise<void> {
  if (!Number.isInteger(inFlight) || inFlight < 1) throw new RangeError(`files in flight must be a positive integer, not ${inFlight}`);
  let next = 0;
  let failed = false;
  let first: unknown;
  const lane = async (): Promise<void> => {
    while (!failed && next < files.length) {
      const f = files[next++]!;
      try {
        await bucket.uploadFile(f.name, f.path);
      } catch (err) {
        if (!failed) first = err;
        failed = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, files.length) }, lane));
  if (failed) throw first;
}
