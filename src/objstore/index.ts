/**
 * Object storage in Thanos' bucket configuration format: FILESYSTEM and S3.
 *
 * @example
 * const bucket = await openBucket(parseBucketConfig(await readFile(file, 'utf8')), log);
 * await bucket.uploadFile(`${ulid}/index`, join(blockDir, 'index'));
 */
export { isNotFound, ObjectNotFoundError, type Bucket } from './bucket.js';
export { openBucket, parseBucketConfig, SUPPORTED_BUCKET_TYPES, THANOS_BUCKET_TYPES, type BucketConfig, type FilesystemConfig } from './config.js';
export { S3_DEFAULTS, type HttpConfig, type S3Config, type SseConfig, type TlsConfig } from './config-s3.js';
export { ObjstoreConfigError } from './errors.js';
export { FilesystemBucket } from './filesystem.js';
export type { ObjstoreLogger } from './logger.js';
export { prefixed } from './prefixed.js';
