import type { Bucket } from '../objstore/bucket.js';

/**
 * Files in flight at once by default, over every block of a shipper pass
 * (--shipper.upload-concurrency sets it). Two: while
 * one file's upload waits on its first part (read and hashed before
 * anything is sent) or on CompleteMultipartUpload, the other keeps the
 * connection busy. Each S3 upload holds at most two part buffers, so the
 * shipper holds at most four (64 MiB with minio's 16 MiB parts for files
 * under part_size).
 */
export const BLOCK_FILES_IN_FLIGHT = 2;

/** One local file and the object it becomes. */
export interface FileUpload {
  name: string;
  path: string;
}

/** A batch's files waiting for a lane, and how it ends. */
interface Batch {
  queue: FileUpload[];
  running: number;
  failed: boolean;
  first: unknown;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Lanes that upload files, at most `inFlight` at once over every batch
 * given to run(), batches served in the order they came and each batch's
 * files in their order.
 */
export class FileLanes {
  private readonly batches: Batch[] = [];
  private running = 0;

  constructor(private readonly bucket: Bucket, private readonly inFlight = BLOCK_FILES_IN_FLIGHT) {
    if (!Number.isInteger(inFlight) || inFlight < 1) throw new RangeError(`files in flight must be a positive integer, not ${inFlight}`);
  }

  /**
   * Uploads `files`; resolves once all are up. On the batch's first failure
   * starts none more of its files, waits for those in flight (so that
   * nothing of it is still writing when the caller goes on) and rejects
   * with that first error.
   */
  run(files: readonly FileUpload[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const batch: Batch = { queue: [...files], running: 0, failed: false, first: undefined, resolve, reject };
      this.batches.push(batch);
      this.settleIfDone(batch);
      this.fill();
    });
  }

  /** Starts files while lanes are free. */
  private fill(): void {
    while (this.running < this.inFlight) {
      const batch = this.batches.find((b) => !b.failed && b.queue.length > 0);
      if (batch === undefined) return;
      const file = batch.queue.shift()!;
      this.running++;
      batch.running++;
      this.bucket.uploadFile(file.name, file.path).then(() => undefined, (err: unknown) => {
        if (!batch.failed) batch.first = err;
        batch.failed = true;
        batch.queue.length = 0;
      }).finally(() => {
        this.running--;
        batch.running--;
        this.settleIfDone(batch);
        this.fill();
      });
    }
  }

  private settleIfDone(batch: Batch): void {
    const at = this.batches.indexOf(batch);
    if (at < 0 || batch.running > 0 || batch.queue.length > 0) return;
    this.batches.splice(at, 1);
    if (batch.failed) batch.reject(batch.first);
    else batch.resolve();
  }
}
