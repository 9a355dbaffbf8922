/**
 * An OTLP/HTTP metrics body, in a worker: gunzipped when sent so, decoded
 * (protobuf or the JSON mapping), translated as Prometheus does and
 * encoded as a prometheus.WriteRequest for the remote-write parser, metric
 * by metric (the protobuf one is never held whole as objects).
 */
import { gunzipSync } from 'node:zlib';
import { malformedRequest } from '../errors/errors.js';
import { readJsonMetricsRequest } from './json-reader.js';
import { readMetricsRequest } from './proto-reader.js';
import type { OtlpSettings } from './settings.js';
import { visitRequest } from './model.js';
import { Translation } from './translate.js';
import { WriteRequestWriter } from './write-request.js';

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
 * The WriteRequest bytes of an OTLP body and what was refused.
 *
 * @throws MalformedRequestError for a body that does not decode.
 * @throws OtlpTooLargeError for a gzip body past `maxDecodedBytes`.
 */
export function otlpToWriteRequest(bytes: Uint8Array, body: OtlpBody): { bytes: Uint8Array; refused: OtlpRefused } {
  let plain = bytes;
  if (body.gzip) {
    try {
      plain = gunzipSync(bytes, { maxOutputLength: body.maxDecodedBytes });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new OtlpTooLargeError(`gzip body inflates past ${body.maxDecodedBytes} bytes`);
      }
      throw malformedRequest(0, `gzip: ${(err as Error).message}`);
    }
  }
  const out = new WriteRequestWriter();
  const t = new Translation(body.settings, out);
  if (body.format === 'json') visitRequest(readJsonMetricsRequest(plain), t);
  else readMetricsRequest(plain, t);
  return { bytes: out.finish(), refused: { rejected: t.refusals.rejected, message: t.refusals.errors.join('; ') } };
}
