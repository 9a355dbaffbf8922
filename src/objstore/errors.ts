/**
 * A bucket configuration Strata refuses. The message starts with
 * `objstore config:` and names the key path, e.g.
 * `objstore config: config.http_config.idle_conn_timeout: "x" is not a duration ...`.
 */
export class ObjstoreConfigError extends Error {
  override readonly name = 'ObjstoreConfigError';
  constructor(readonly path: string, detail: string) {
    super(path === '' ? `objstore config: ${detail}` : `objstore config: ${path}: ${detail}`);
  }
}

/** The error for a refused configuration value at key `path` (`''` for the document). */
export function configError(path: string, detail: string): ObjstoreConfigError {
  return new ObjstoreConfigError(path, detail);
}

/** The error for an object name a bucket cannot hold. */
export function invalidObjectName(bucket: string, name: string, why: string): Error {
  return new Error(`${bucket}: object name ${JSON.stringify(name)} ${why}`);
}
