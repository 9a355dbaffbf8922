import type { Bucket } from './bucket.js';
import { readS3Config, type S3Config } from './config-s3.js';
import { configError } from './errors.js';
import { FilesystemBucket } from './filesystem.js';
import type { ObjstoreLogger } from './logger.js';
import { prefixed } from './prefixed.js';
import { YamlMap } from '../config/yaml-map.js';
import { loadOptional } from '../errors/optional-package.js';

/** The S3 bucket's packages: optional peer dependencies of Strata (package.json), installed by whoever ships to S3. */
export const S3_PACKAGES = ['@aws-sdk/client-s3', '@aws-sdk/credential-providers', '@aws-sdk/lib-storage', '@smithy/node-http-handler', '@smithy/util-retry'] as const;

/** FILESYSTEM's `config`. */
export interface FilesystemConfig {
  /** `directory`: where the objects live, as files. */
  directory: string;
}

/**
 * A parsed Thanos bucket configuration (the file of `--objstore.config-file`,
 * or the text of `--objstore.config`).
 */
export type BucketConfig =
  | { type: 'FILESYSTEM'; config: FilesystemConfig; prefix: string; warnings: string[] }
  | { type: 'S3'; config: S3Config; prefix: string; warnings: string[] };

/** Every bucket type Thanos' client factory knows (objstore.ObjProvider). */
export const THANOS_BUCKET_TYPES = ['GCS', 'S3', 'AZURE', 'SWIFT', 'COS', 'ALIYUNOSS', 'FILESYSTEM', 'BOS', 'OCI', 'OBS'] as const;
/** The ones Strata implements. */
export const SUPPORTED_BUCKET_TYPES = ['S3', 'FILESYSTEM'] as const;

/**
 * Parses Thanos' bucket configuration YAML exactly as Thanos does
 * (client.NewBucket): top-level keys `type` (case-insensitive), `config`
 * and `prefix`, nothing else; only the first YAML document counts. Throws
 * an ObjstoreConfigError naming the key path of what is wrong. Reads no
 * files and opens no connection: openBucket does.
 *
 * @example
 * const cfg = parseBucketConfig('type: FILESYSTEM\nconfig:\n  directory: /data/bucket\n');
 * const bucket = await openBucket(cfg, log);
 */
export function parseBucketConfig(text: string): BucketConfig {
  const top = YamlMap.parse(text, configError);
  const typeText = top.str('type');
  const config = top.map('config');
  const prefix = top.str('prefix');
  top.finish(['type', 'config', 'prefix']);
  const type = typeText.toUpperCase();
  if (type === 'FILESYSTEM') {
    // Thanos decodes FILESYSTEM's config with yaml.Unmarshal, not strictly:
    // an unknown key there is ignored, so Strata warns rather than refuses.
    const directory = config.str('directory');
    const warnings = config.unread().map((k) => `${config.at(k)}: unknown key ignored (FILESYSTEM takes only directory)`);
    if (directory === '') throw configError(config.at('directory'), 'missing directory for filesystem bucket');
    return { type, config: { directory }, prefix, warnings };
  }
  if (type === 'S3') return { type, config: readS3Config(config), prefix, warnings: [] };
  if ((THANOS_BUCKET_TYPES as readonly string[]).includes(type)) {
    throw configError('type', `bucket type ${type} is not supported by Strata (it supports ${SUPPORTED_BUCKET_TYPES.join(' and ')}); ship to ${type} through an S3-compatible gateway, or let Thanos own the upload`);
  }
  throw configError('type', `bucket with type ${JSON.stringify(typeText)} is not supported (Thanos knows ${THANOS_BUCKET_TYPES.join(', ')})`);
}

/**
 * Opens the bucket `cfg` describes, with its `prefix` applied (every object
 * name is `prefix/name`, as Thanos' prefixed bucket). Logs the configuration's
 * warnings. Reads the files the configuration names (TLS, SSE-C key) and
 * throws an ObjstoreConfigError naming the key when one cannot be used; it
 * does not contact the store.
 */
export async function openBucket(cfg: BucketConfig, log?: ObjstoreLogger): Promise<Bucket> {
  for (const w of cfg.warnings) log?.warn({ objstore: cfg.type }, w);
  let bucket: Bucket;
  if (cfg.type === 'FILESYSTEM') {
    bucket = new FilesystemBucket(cfg.config.directory);
  } else {
    // Loaded on demand: a FILESYSTEM user never loads the AWS SDK (an optional peer dependency).
    const { openS3Bucket } = await loadOptional('an S3 bucket (--objstore.config type: S3)', S3_PACKAGES, () => import('./s3.js'));
    bucket = await openS3Bucket(cfg.config, log);
  }
  return prefixed(bucket, cfg.prefix);
}
