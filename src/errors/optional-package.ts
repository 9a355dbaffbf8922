/**
 * Packages only some users need (the S3 SDK for shipping to S3, Chart.js
 * for the bench's HTML report) are optional peer dependencies: not
 * installed with Strata, loaded at the point of use. When one is missing
 * the error names the feature and the command that installs it.
 */

/** A feature was asked for whose optional package is not installed. */
export class MissingOptionalPackageError extends Error {
  override readonly name = 'MissingOptionalPackageError';
  constructor(readonly feature: string, readonly packages: readonly string[], options?: { cause?: unknown }) {
    super(`${feature} needs the optional package${packages.length > 1 ? 's' : ''} ${packages.join(', ')}, which ${packages.length > 1 ? 'are' : 'is'} not installed: npm install ${packages.join(' ')}`, options);
  }
}

/** Whether `err` is Node's "module not found" for one of `packages` (not for a file inside Strata). */
function isMissing(err: unknown, packages: readonly string[]): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return packages.some((p) => err.message.includes(`'${p}'`) || err.message.includes(`"${p}"`) || err.message.includes(`'${p}/`));
}

/**
 * Runs `load` (a dynamic import, or a require.resolve); a missing package
 * of `packages` becomes a {@link MissingOptionalPackageError} for `feature`.
 *
 * @example
 * const { openS3Bucket } = await loadOptional('an S3 bucket', S3_PACKAGES, () => import('./s3.js'));
 */
export async function loadOptional<T>(feature: string, packages: readonly string[], load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isMissing(err, packages)) throw new MissingOptionalPackageError(feature, packages, { cause: err });
    throw err;
  }
}

/** {@link loadOptional} for a synchronous `load` (require.resolve). */
export function loadOptionalSync<T>(feature: string, packages: readonly string[], load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (isMissing(err, packages)) throw new MissingOptionalPackageError(feature, packages, { cause: err });
    throw err;
  }
}
