/**
 * The one place internal errors become the library's typed errors
 * (errors.ts). Kinds are read with the same errorKind() that maps them to
 * gRPC codes and HTTP statuses (src/errors/status.ts), so the three
 * edges agree: InvalidArgument is InvalidArgumentError, AlreadyExists
 * SamplesRejectedError, ResourceExhausted LimitError, Unavailable
 * UnavailableError, anything unknown InternalError.
 */
import { DataDirLockedError } from '../files/dir-lock.js';
import { SamplesRejectedError as InternalRejected } from '../errors/errors.js';
import { ListenError as HttpListenError, TlsFileError } from '../http/index.js';
import { ObjstoreConfigError } from '../objstore/index.js';
import { errorKind } from '../errors/status.js';
import { LimitsConfigError } from '../ingest/limits/index.js';
import {
  DataDirInUseError, InternalError, InvalidArgumentError, LimitError, ListenError, SamplesRejectedError, StrataError, UnavailableError,
} from './errors.js';

/** Where a failure happened, for errors that do not say it themselves (a gRPC bind failure). */
export type Stage = 'open' | 'listen-grpc' | 'listen-http' | 'call';

/** The library's error for `err`; a StrataError is returned as it is. */
export function publicError(err: unknown, stage: Stage = 'call'): StrataError {
  if (err instanceof StrataError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const cause = { cause: err };
  if (err instanceof DataDirLockedError) return new DataDirInUseError(message, cause);
  if (err instanceof HttpListenError) return new ListenError(message, cause);
  if (err instanceof TlsFileError) return new ListenError(message, cause);
  if (err instanceof ObjstoreConfigError || err instanceof LimitsConfigError) return new InvalidArgumentError(message, cause);
  // grpc-js says only "No address added out of total 1 resolved": name the listener.
  if (stage === 'listen-grpc') return new ListenError(`gRPC: ${message}`, cause);
  const retryAfter = (err as { retryAfterSeconds?: number }).retryAfterSeconds;
  switch (errorKind(err)) {
    case 'invalid-argument':
    case 'invalid-labels':
    case 'malformed-request':
      return new InvalidArgumentError(message, cause);
    case 'samples-rejected': {
      const counts = (err as InternalRejected).counts;
      return new SamplesRejectedError(message, {
        outOfOrder: counts['out-of-order'],
        conflict: counts.conflict,
        tooOld: counts['too-old'],
        tooFarInFuture: counts['too-far-in-future'],
      }, cause);
    }
    case 'resource-exhausted':
    case 'rate-limited':
      return new LimitError(message, retryAfter, cause);
    case 'unavailable':
      return new UnavailableError(message, retryAfter, cause);
    default:
      return new InternalError(message, cause);
  }
}
