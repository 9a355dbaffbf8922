import type { S3Config } from './config-s3.js';

const MiB = 1024 * 1024;
/** minio-go's minPartSize: objects up to it go in one PUT when no part size applies. */
export const MINIO_MIN_PART_SIZE = 16 * MiB;
/** S3's most parts in one upload. */
export const MAX_PARTS = 10_000;

/** How an object of a given size is uploaded. */
export type UploadPlan = { multipart: false } | { multipart: true; partSize: number };

/**
 * The choice Thanos' S3 Upload and minio-go's PutObject make together:
 * Thanos passes part_size only for objects at least that large (else 0);
 * minio then uploads in one PUT what fits in one part (the part size, or
 * 16 MiB when none applies), and otherwise in parts of the part size, or,
 * with none, of the smallest multiple of 16 MiB that needs no more than
 * 10,000 parts. disable_multipart always means one PUT.
 *
 * So with the default part_size of 64 MiB, a 10 MiB file is one PUT, a
 * 40 MiB file goes in 16 MiB parts, and a 200 MiB file in 64 MiB parts.
 */
export function uploadPlan(size: number, cfg: Pick<S3Config, 'partSize' | 'disableMultipart'>): UploadPlan {
  if (cfg.disableMultipart) return { multipart: false };
  const given = size < cfg.partSize ? 0 : cfg.partSize;
  if (size <= (given === 0 ? MINIO_MIN_PART_SIZE : given)) return { multipart: false };
  if (given !== 0) {
    if (Math.ceil(size / given) > MAX_PARTS) {
      throw new Error(`object of ${size} bytes needs more than ${MAX_PARTS} parts of part_size ${given}; raise part_size`);
    }
    return { multipart: true, partSize: given };
  }
  const partSize = Math.max(1, Math.ceil(Math.floor(size / MAX_PARTS) / MINIO_MIN_PART_SIZE)) * MINIO_MIN_PART_SIZE;
  return { multipart: true, partSize };
}

/** What put_user_metadata becomes on every upload. */
export interface UserMetadata {
  /** x-amz-meta-* entries, names without the prefix (the SDK adds it). */
  metadata: Record<string, string>;
  /** Headers minio sends as written: x-amz-acl and x-amz-grant-*. */
  headers: Record<string, string>;
  /** X-Amz-Storage-Class, which Thanos takes out of the metadata. */
  storageClass: string | undefined;
}

/** Splits put_user_metadata as Thanos and minio's PutObjectOptions.Header() do. */
export function splitUserMetadata(meta: Record<string, string>): UserMetadata {
  const out: UserMetadata = { metadata: {}, headers: {}, storageClass: undefined };
  for (const [k, v] of Object.entries(meta)) {
    const lower = k.toLowerCase();
    if (lower === 'x-amz-storage-class' && out.storageClass === undefined) out.storageClass = v;
    else if (lower.startsWith('x-amz-meta-')) out.metadata[k.slice('x-amz-meta-'.length)] = v;
    else if (lower === 'x-amz-acl' || lower.startsWith('x-amz-grant-')) out.headers[lower] = v;
    else out.metadata[k] = v;
  }
  return out;
}
