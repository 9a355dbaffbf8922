/**
 * A remote-write load as OTLP/HTTP metrics bodies (`--format otlp`): each
 * planned request (a snappy-compressed prometheus.WriteRequest, plan.ts)
 * turned, before the clock starts, into an ExportMetricsServiceRequest of
 * the same series and samples, so that both formats can be sent the very
 * same load and compared.
 *
 * Shape: one resource without attributes, one scope ("strata-bench"),
 * a gauge Metric per metric name (in the order first met), each series a
 * NumberDataPoint per sample whose attributes are the series' other
 * labels. Gauges because Prometheus' translation (docs/format/otlp.md)
 * keeps a gauge's name and valid attribute names as they are: the series
 * stored are the remote-write run's, with no resource labels added
 * (without service.* attributes there is no job, instance or target_info).
 * Encoded with the generated OTLP types; gzip-compressed when asked, as
 * the OpenTelemetry Collector's otlphttp exporter sends by default.
 */
import { gzipSync } from 'node:zlib';
import { ExportMetricsServiceRequest } from '../../gen/opentelemetry/proto/collector/metrics/v1/metrics_service.js';
import { WriteRequest } from '../../gen/prometheus/remote.js';
import { reencodeRequests } from './reencode.js';

/** How the OTLP bodies are compressed (--otlp-compression). */
export type OtlpCompression = 'gzip' | 'none';

/** OTLP/HTTP's request headers for protobuf bodies. */
export function otlpHeaders(compression: OtlpCompression): Record<string, string> {
  return { 'Content-Type': 'application/x-protobuf', 'User-Agent': 'strata-bench', ...(compression === 'gzip' ? { 'Content-Encoding': 'gzip' } : {}) };
}

/** The ExportMetricsServiceRequest bytes holding the series and samples of one WriteRequest. */
export function otlpRequestOf(wr: WriteRequest): Uint8Array {
  const metrics = new Map<string, object[]>();
  for (const ts of wr.timeseries) {
    if (ts.histograms.length > 0) throw new Error('otlpRequestOf: native histograms are not sent as OTLP (--histogram-share must be 0 with --format otlp)');
    let name = '';
    const attributes = [];
    for (const l of ts.labels) {
      if (l.name === '__name__') name = l.value;
      else attributes.push({ key: l.name, value: { value: { $case: 'stringValue' as const, value: l.value } } });
    }
    let points = metrics.get(name);
    if (points === undefined) {
      points = [];
      metrics.set(name, points);
    }
    for (const s of ts.samples) {
      points.push({ attributes, timeUnixNano: s.timestamp * 1_000_000n, value: { $case: 'asDouble', value: s.value } });
    }
  }
  const list = [...metrics].map(([name, dataPoints]) => ({ name, data: { $case: 'gauge', value: { dataPoints } } }));
  const request = { resourceMetrics: [{ scopeMetrics: [{ scope: { name: 'strata-bench' }, metrics: list }] }] };
  // Cast: the generated DeepPartial/Exact types do not narrow the oneofs of an object built apart from the call.
  return ExportMetricsServiceRequest.encode(ExportMetricsServiceRequest.fromPartial(request as unknown as Parameters<typeof ExportMetricsServiceRequest.fromPartial>[0])).finish();
}

/**
 * Every request of `compressed` (snappy WriteRequests) as an OTLP body, in
 * the same order; each its own Buffer.
 *
 * @throws LoadTooLargeError when the bodies together take more than `maxBytes`.
 */
export function otlpWriteBodies(compressed: readonly Buffer[], maxBytes: number, compression: OtlpCompression): Buffer[] {
  return reencodeRequests(compressed, maxBytes, `${compression === 'gzip' ? 'gzip' : 'uncompressed'} OTLP bodies`, (decoded) => {
    const plain = otlpRequestOf(WriteRequest.decode(decoded));
    return compression === 'gzip' ? gzipSync(plain) : Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength);
  });
}
