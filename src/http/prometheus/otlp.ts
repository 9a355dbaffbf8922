/**
 * POST /api/v1/otlp/v1/metrics (Prometheus' OTLP receiver) and
 * POST /api/v1/otlp (Thanos Receive's): OTLP/HTTP metrics, an
 * ExportMetricsServiceRequest as protobuf (application/x-protobuf) or in
 * the JSON mapping (application/json), gzip-compressed or not. Decoding
 * and Prometheus' translation (src/otlp) run in the worker pool, and the
 * result takes the remote-write path's parser, batch and Writer, limits
 * included. The tenant comes from THANOS-TENANT, as for remote write.
 *
 * Answers as OTLP/HTTP specifies: 200 with an ExportMetricsServiceResponse
 * in the request's encoding, whose partial_success counts and names the
 * data points refused by the translation (delta temporality, names that
 * cannot be built); 400 for a body that does not decode; 413 over the
 * body limit (or a gzip body inflating past 8 times it); 415 for another
 * content type or encoding; 429 and 503 under the write limits and memory
 * pressure, and 400/409 for invalid series and sample conflicts, as
 * remote write answers them. Every refusal's body is a google.rpc.Status
 * in the request's encoding (otlp-status.ts), as OTLP/HTTP specifies.
 */
import { mediaType } from '../content-type.js';
import { HttpProblem } from '../errors.js';
import type { Reply, RequestContext, RouteSpec } from '../route.js';
import { DEFAULT_OTLP_SETTINGS, type OtlpSettings } from '../../otlp/settings.js';
import type { OtlpRefused } from '../../otlp/otlp-body.js';
import { JSON_TYPE, PROTOBUF, otlpRefusal } from './otlp-status.js';
import { asProblem } from './problems.js';
import type { Readiness } from './readiness.js';
import { MAX_DECOMPRESSION_RATIO } from './remote-write.js';
import { uvarintBytes } from '../../encoding/varint.js';
import { TENANT_HEADER, tenantOf } from './tenant.js';

/** What the OTLP routes need. */
export interface OtlpDeps {
  readiness: Readiness;
  /** --http-max-body-bytes: the largest body read. */
  maxBodyBytes: number;
  /** The --otlp.* flags; Prometheus' defaults when absent. */
  otlp?: OtlpSettings;
}

/** Prometheus' path and Thanos Receive's. */
export const OTLP_PATHS = ['/api/v1/otlp/v1/metrics', '/api/v1/otlp'] as const;

const encoder = new TextEncoder();

/** ExportMetricsServiceResponse as protobuf: partial_success = 1 {rejected_data_points = 1, error_message = 2}. */
function protobufResponse(refused: OtlpRefused | undefined): Uint8Array {
  if (refused === undefined || refused.rejected === 0) return new Uint8Array(0);
  const message = encoder.encode(refused.message);
  const inner: number[] = [0x08, ...uvarintBytes(refused.rejected)];
  if (message.length > 0) inner.push(0x12, ...uvarintBytes(message.length), ...message);
  return Uint8Array.from([0x0a, ...uvarintBytes(inner.length), ...inner]);
}

/** The same in the JSON mapping (int64 as a string). */
function jsonResponse(refused: OtlpRefused | undefined): string {
  if (refused === undefined || refused.rejected === 0) return '{}';
  return JSON.stringify({ partialSuccess: { rejectedDataPoints: String(refused.rejected), errorMessage: refused.message } });
}

function formatOf(headers: RequestContext['headers']): { format: 'protobuf' | 'json'; gzip: boolean } {
  const type = mediaType(headers['content-type'] ?? '');
  if (type !== PROTOBUF && type !== JSON_TYPE) {
    throw new HttpProblem(415, `Content-Type ${JSON.stringify(type)} is not accepted; OTLP/HTTP bodies are ${PROTOBUF} or ${JSON_TYPE}`);
  }
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'gzip' && encoding !== 'identity') {
    throw new HttpProblem(415, `Content-Encoding ${JSON.stringify(encoding)} is not accepted; send gzip or none`);
  }
  return { format: type === JSON_TYPE ? 'json' : 'protobuf', gzip: encoding === 'gzip' };
}

/** The OTLP routes, one per path. */
export function otlpRoutes(deps: OtlpDeps): RouteSpec[] {
  const settings = deps.otlp ?? DEFAULT_OTLP_SETTINGS;
  const maxDecodedBytes = deps.maxBodyBytes * MAX_DECOMPRESSION_RATIO;
  const handler = async (ctx: RequestContext): Promise<Reply> => {
    const { format, gzip } = formatOf(ctx.headers);
    const writer = deps.readiness.writer();
    let outcome;
    try {
      outcome = await writer.write(ctx.body as Uint8Array, {
        dialect: 'prometheus',
        tenant: tenantOf(ctx.headers[TENANT_HEADER]),
        otlp: { format, gzip, maxDecodedBytes, settings },
      });
    } catch (err) {
      throw asProblem(err);
    }
    if (outcome.error !== undefined) throw asProblem(outcome.error);
    return format === 'json'
      ? { status: 200, contentType: JSON_TYPE, body: jsonResponse(outcome.otlp) }
      : { status: 200, contentType: PROTOBUF, body: protobufResponse(outcome.otlp) };
  };
  return OTLP_PATHS.map((path) => ({
    method: 'POST',
    path,
    // Content types are checked by the handler, to answer 415 in OTLP's words.
    body: { kind: 'raw', limit: deps.maxBodyBytes },
    headers: [TENANT_HEADER, 'content-type', 'content-encoding'],
    handler,
    refusal: otlpRefusal,
  }));
}
