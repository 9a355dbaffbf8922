import { status } from '@grpc/grpc-js';

/**
 * The one table from internal errors to gRPC codes and HTTP statuses.
 * Errors carry a `kind`; anything unknown is our own fault: Internal / 500.
 */
const TABLE: Record<string, { grpc: status; http: number }> = {
  'invalid-argument': { grpc: status.INVALID_ARGUMENT, http: 400 },
  'invalid-labels': { grpc: status.INVALID_ARGUMENT, http: 400 },
  'malformed-request': { grpc: status.INVALID_ARGUMENT, http: 400 },
  'samples-rejected': { grpc: status.ALREADY_EXISTS, http: 409 },
  'resource-exhausted': { grpc: status.RESOURCE_EXHAUSTED, http: 413 },
  // Thanos Receive's 429 (a tenant over its head series limit; here also too many writes at once).
  'rate-limited': { grpc: status.RESOURCE_EXHAUSTED, http: 429 },
  unavailable: { grpc: status.UNAVAILABLE, http: 503 },
  // nginx's "client closed request": nobody reads the answer any more.
  cancelled: { grpc: status.CANCELLED, http: 499 },
  internal: { grpc: status.INTERNAL, http: 500 },
};

const INTERNAL = { grpc: status.INTERNAL, http: 500 };

/** The error's kind, as the table knows it. */
export function errorKind(err: unknown): string | undefined {
  const kind = (err as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' && kind in TABLE ? kind : undefined;
}

export function grpcStatusOf(err: unknown): status {
  const kind = errorKind(err);
  return (kind === undefined ? INTERNAL : TABLE[kind]!).grpc;
}

export function httpStatusOf(err: unknown): number {
  const kind = errorKind(err);
  return (kind === undefined ? INTERNAL : TABLE[kind]!).http;
}
