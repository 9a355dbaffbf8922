/**
 * An OTLP/HTTP metrics body, in a worker: gunzipped when sent so, decoded
 * (protobuf or the JSON mapping) and translated as Prometheus does, metric
 * by metric (the protobuf one is never held whole as objects), into a
 * SeriesSink (src/ingest/parse/otlp-batch.ts: the append batch).
 */
import { gunzipSync } from 'node:zlib';
import { malformedRequest } from '../errors/errors.js';
import { readJsonMetricsRequest } from './json-reader.js';
import { readMetricsRequest } from './proto-reader.js';
import type { OtlpSettings } from './settings.js';
import { visitRequest } from './model.js';
import { Translation } from './translate.js';
import type { SeriesSink } from './translated.js';

/** How an OTLP body came. */
export interface OtlpBody {
  /** application/x-protobuf or application/json (OTLP/HTTP's two encodings). */
  format: 'protobuf' | 'json';
  /** Content-Encoding: gzip. */
  gzip: boolean;
  /** The most a gzip body may inflate to. */
  maxDecodedBytes: number;
  settings: OtlpSettings;
}

/** What of the OTLP request was refused: ExportMetricsServiceResponse's partial_success. */
export interface OtlpRefused {
  rejected: number;
  message: string;
}

/** A gzip body that would inflate past the limit (answered 413). */
export class OtlpTooLargeError extends RangeError {
  override readonly name = 'OtlpTooLargeError';
}

/**
 * The body as sent before its Content-Encoding: gunzipped when gzip.
 *
 * @throws MalformedRequestError for gzip that does not inflate.
 * @throws OtlpTooLargeError for a gzip body past `maxDecodedBytes`.
 */
export function plainOtlpBody(bytes: Uint8Array, body: OtlpBody): Uint8Array {
  if (!body.gzip) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: body.maxDecodedBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new OtlpTooLargeError(`gzip body inflates past ${body.maxDecodedBytes} bytes`);
    }
    throw malformedRequest(0, `gzip: ${(err as Error).message}`);
  }
}

/**
 * Reads a plain body (plainOtlpBody) and translates it into `sink`, metric
 * by metric; answers what was refused.
 *
 * @throws MalformedRequestError for a body that does not decode.
 */
export function translateOtlpBody(plain: Uint8Array, body: OtlpBody, sink: SeriesSink): OtlpRefused {
  if (body.format === 'json') {
    const t = new Translation(body.settings, sink);
    visitRequest(readJsonMetricsRequest(plain), t);
    return refusedOf(t);
  }
  const t = new Translation(body.settings, sink, plain);
  readMetricsRequest(plain, t);
  return refusedOf(t);
}

function refusedOf(t: Translation): OtlpRefused {
  return { rejected: t.refusals.rejected, message: t.refusals.errors.join('; ') };
}
