/**
 * POST /api/v1/write and /api/v1/receive: Prometheus remote write 1.0
 * (WIRE.md "Prometheus remote write and read over HTTP"): a snappy block of
 * a prometheus.WriteRequest. Decompression and parsing run in the worker
 * pool; the engine appends on this thread.
 *
 * Answers: 204 when everything was stored; 400 for a body that does not
 * decode or invalid label sets; 409 for sample conflicts; 413 over the
 * body limit; 415 for another protocol (remote write 2.0) or encoding;
 * 503 while not ready. The valid series of a refused request are stored.
 */
import type { Logger } from 'pino';
import type { CodecPool } from '../../pool/codec-pool.js';
import { remoteWrite } from '../../store/remote-write.js';
import { HttpProblem } from '../errors.js';
import type { Reply, RequestContext, RouteSpec } from '../route.js';
import { asProblem } from './problems.js';
import type { Readiness } from './readiness.js';
import { TENANT_HEADER, tenantOf } from './tenant.js';

/** What the remote-write routes need. */
export interface RemoteWriteDeps {
  readiness: Readiness;
  pool: CodecPool;
  /** --tenant-label-name. */
  tenantLabel: string;
  /** --http-max-body-bytes: the largest body read. */
  maxBodyBytes: number;
  log: Logger;
}

/** The paths Prometheus (/api/v1/write) and Thanos Receive (/api/v1/receive) clients use. */
export const REMOTE_WRITE_PATHS = ['/api/v1/write', '/api/v1/receive'] as const;

/**
 * How far a body may decompress, as a multiple of the body limit. Snappy
 * shrinks remote-write requests 4-10x (label names and values repeat); a
 * body that claims more than this is refused before anything is allocated.
 */
export const MAX_DECOMPRESSION_RATIO = 8;

/** The only protocol served: remote write 1.0's message. */
const WRITE_PROTO = 'prometheus.WriteRequest';

/**
 * Remote write 1.0 clients send `application/x-protobuf`; 2.0 clients add
 * `;proto=io.prometheus.write.v2.Request` and must be told 415 to fall
 * back. A missing Content-Type or Content-Encoding is taken as 1.0 and
 * snappy, as Prometheus does.
 */
function checkProtocol(headers: RequestContext['headers']): void {
  const proto = parameter(headers['content-type'] ?? '', 'proto');
  if (proto !== undefined && proto !== WRITE_PROTO) {
    throw new HttpProblem(415, `remote write protocol ${JSON.stringify(proto)} is not served; send remote write 1.0 (proto=${WRITE_PROTO})`);
  }
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'snappy') {
    throw new HttpProblem(415, `Content-Encoding ${JSON.stringify(encoding)} is not accepted; remote write bodies are snappy block-compressed`);
  }
}

/** A parameter of a header value like `type/subtype; name=value`, unquoted, or undefined. */
function parameter(value: string, name: string): string | undefined {
  const parts = value.split(';');
  for (let i = 1; i < parts.length; i++) {
    const eq = parts[i]!.indexOf('=');
    if (eq < 0 || parts[i]!.slice(0, eq).trim().toLowerCase() !== name) continue;
    return parts[i]!.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/** The remote-write routes, one per path. */
export function remoteWriteRoutes(deps: RemoteWriteDeps): RouteSpec[] {
  const maxDecodedBytes = deps.maxBodyBytes * MAX_DECOMPRESSION_RATIO;
  const handler = async (ctx: RequestContext): Promise<Reply> => {
    const db = deps.readiness.db();
    checkProtocol(ctx.headers);
    let outcome;
    try {
      outcome = await remoteWrite(db, deps.pool, ctx.body as Uint8Array, {
        dialect: 'prometheus',
        tenantLabel: deps.tenantLabel,
        tenant: tenantOf(ctx.headers[TENANT_HEADER]),
        snappy: { maxDecodedBytes },
      });
    } catch (err) {
      throw asProblem(err);
    }
    if (outcome.error !== undefined) throw asProblem(outcome.error);
    return { status: 204 };
  };
  return REMOTE_WRITE_PATHS.map((path) => ({
    method: 'POST',
    path,
    body: { kind: 'raw', limit: deps.maxBodyBytes, contentTypes: ['application/x-protobuf', ''] },
    headers: [TENANT_HEADER, 'content-type', 'content-encoding'],
    handler,
  }));
}
