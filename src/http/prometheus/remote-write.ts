/**
 * POST /api/v1/write and /api/v1/receive: Prometheus remote write 1.0
 * (WIRE.md "Prometheus remote write and read over HTTP"): a snappy block of
 * a prometheus.WriteRequest; and remote write 2.0 (its specification,
 * docs/specs/prw/remote_write_spec_2_0.md in prometheus/docs): a snappy
 * block of an io.prometheus.write.v2.Request, chosen by Content-Type's
 * `proto` parameter. Decompression and parsing run in the worker pool; the
 * engine appends on this thread.
 *
 * Native histograms (integer and float) are stored beside float samples.
 * Answers: 204 when everything was stored; 400 for a body that does not
 * decode, invalid label sets or native histograms that fail Prometheus'
 * checks (naming the first series and why); 409 for sample conflicts,
 * floats and histograms alike (2.0: 400, as its
 * specification requires for every invalid sample); 413 over the body
 * limit; 415 for a protobuf message or encoding not served; 503 while not
 * ready. The valid series of a refused request are stored. 2.0 answers
 * carry the X-Prometheus-Remote-Write-{Samples,Histograms,Exemplars}-Written
 * headers, errors included; 1.0 answers stay as they were (the
 * specification lets a 1.0 receiver leave them out, and 1.0 senders do not
 * read them).
 * With write limits (src/ingest/limits): 413 over a request limit, 429
 * over the head series limit or the concurrency limit, 503 under memory
 * pressure (Retry-After on the last two); such a request stores nothing.
 */
import { HttpProblem } from '../errors.js';
import type { Reply, RequestContext, RouteSpec } from '../route.js';
import { asProblem } from './problems.js';
import type { Readiness } from './readiness.js';
import { TENANT_HEADER, tenantOf, type DefaultTenantDeps } from './tenant.js';

/** What the remote-write routes need: writes go through the Writer the readiness holds. */
export interface RemoteWriteDeps extends DefaultTenantDeps {
  readiness: Readiness;
  /** --http-max-body-bytes: the largest body read. */
  maxBodyBytes: number;
}

/** The paths Prometheus (/api/v1/write) and Thanos Receive (/api/v1/receive) clients use. */
export const REMOTE_WRITE_PATHS = ['/api/v1/write', '/api/v1/receive'] as const;

/**
 * How far a body may decompress, as a multiple of the body limit. Snappy
 * shrinks remote-write requests 4-10x (label names and values repeat); a
 * body that claims more than this is refused before anything is allocated.
 */
export const MAX_DECOMPRESSION_RATIO = 8;

/** Remote write 1.0's message. */
const WRITE_PROTO = 'prometheus.WriteRequest';
/** Remote write 2.0's message. */
const WRITE_PROTO_V2 = 'io.prometheus.write.v2.Request';

/**
 * The message a request carries, by its Content-Type: remote write 1.0
 * clients send `application/x-protobuf` (or with `;proto=prometheus.WriteRequest`),
 * 2.0 clients `;proto=io.prometheus.write.v2.Request`; any other message
 * is 415, which tells a 2.0 sender to fall back to one we serve. A missing
 * Content-Type or Content-Encoding is taken as 1.0 and snappy, as
 * Prometheus does.
 */
function protocolOf(headers: RequestContext['headers']): 'prometheus' | 'prometheus-v2' {
  const proto = parameter(headers['content-type'] ?? '', 'proto');
  if (proto !== undefined && proto !== WRITE_PROTO && proto !== WRITE_PROTO_V2) {
    throw new HttpProblem(415, `remote write protobuf message ${JSON.stringify(proto)} is not served; send ${WRITE_PROTO_V2} (remote write 2.0) or ${WRITE_PROTO} (1.0)`);
  }
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'snappy') {
    throw new HttpProblem(415, `Content-Encoding ${JSON.stringify(encoding)} is not accepted; remote write bodies are snappy block-compressed`);
  }
  return proto === WRITE_PROTO_V2 ? 'prometheus-v2' : 'prometheus';
}

/** Remote write 2.0's `Written` response headers: what of the request was written. */
function writtenHeaders(w: { samples: number; histograms: number; exemplars: number }): Array<[string, string]> {
  return [
    ['X-Prometheus-Remote-Write-Samples-Written', String(w.samples)],
    ['X-Prometheus-Remote-Write-Histograms-Written', String(w.histograms)],
    ['X-Prometheus-Remote-Write-Exemplars-Written', String(w.exemplars)],
  ];
}

const NOTHING_WRITTEN = { samples: 0, histograms: 0, exemplars: 0 };

/**
 * A 2.0 refusal: the problem `err` maps to, with the `Written` headers,
 * and 409 (a 1.0 answer Thanos Receive gives sample conflicts) as 400,
 * which 2.0 requires for invalid samples. Our own faults (500) stay as they are.
 */
function v2Problem(err: unknown, written: typeof NOTHING_WRITTEN): unknown {
  const p = asProblem(err);
  if (!(p instanceof HttpProblem)) return p;
  const headers = [...(p.options.headers ?? []), ...writtenHeaders(written)];
  return new HttpProblem(p.status === 409 ? 400 : p.status, p.detail, { ...p.options, headers });
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
    const writer = deps.readiness.writer();
    const dialect = protocolOf(ctx.headers);
    let outcome;
    try {
      outcome = await writer.write(ctx.body as Uint8Array, {
        dialect,
        tenant: tenantOf(ctx.headers[TENANT_HEADER], deps.defaultTenant),
        snappy: { maxDecodedBytes },
      });
    } catch (err) {
      throw dialect === 'prometheus-v2' ? v2Problem(err, NOTHING_WRITTEN) : asProblem(err);
    }
    if (dialect === 'prometheus-v2') {
      if (outcome.error !== undefined) throw v2Problem(outcome.error, outcome);
      return { status: 204, headers: writtenHeaders(outcome) };
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
