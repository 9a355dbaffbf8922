/**
 * Flags of `strata bench remote-write`: where to send, what load (profile,
 * series, samples, churn, histograms, request size), how fast (rate,
 * concurrency) and for how long, TLS for https and grpcs (the --tls-* flags,
 * after Prometheus' remote_write tls_config), plus the shared flags. A
 * grpc:// or grpcs:// --url sends the same load as Thanos'
 * WriteableStore/RemoteWrite calls, as a Receive router does.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../../config/usage-error.js';
import { parseBytes } from '../../config/bytes.js';
import { commonHelp, commonOptions, intFlag, noPositionals, numberFlag, parseCommon, positiveDuration, timeFlag, type CommonConfig } from '../run/flags.js';
import { readClientTls, serverNameFlag, type ClientTlsFiles } from '../run/tls-files.js';
import type { GrpcCompression } from './grpc-frames.js';
import type { OtlpCompression } from './otlp-bodies.js';

export const remoteWriteOptions = {
  ...commonOptions,
  url: { type: 'string' },
  profile: { type: 'string', default: 'node-exporter' },
  series: { type: 'string', default: '10000' },
  'samples-per-series': { type: 'string' },
  'total-samples': { type: 'string' },
  interval: { type: 'string', default: '15s' },
  churn: { type: 'string', default: '0' },
  'series-per-request': { type: 'string', default: '2000' },
  rate: { type: 'string', default: '0' },
  tenant: { type: 'string' },
  'tenant-header': { type: 'string', default: 'THANOS-TENANT' },
  header: { type: 'string', multiple: true, default: [] as string[] },
  'histogram-share': { type: 'string', default: '0' },
  retries: { type: 'string', default: '3' },
  timeout: { type: 'string', default: '30s' },
  start: { type: 'string' },
  'max-encoded': { type: 'string', default: '1GiB' },
  'grpc-compression': { type: 'string', default: 'snappy' },
  format: { type: 'string', default: 'remote-write' },
  'otlp-compression': { type: 'string', default: 'gzip' },
  // Prometheus' remote_write tls_config fields: ca_file, cert_file, key_file, server_name, insecure_skip_verify.
  'tls-ca': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-server-name': { type: 'string' },
  'tls-insecure-skip-verify': { type: 'boolean', default: false },
  'ready-url': { type: 'string' },
  'metrics-url': { type: 'string' },
} as const;

export const remoteWriteHelp = `strata bench remote-write: send a realistic, deterministic Prometheus remote-write load
(1.0: snappy-compressed protobuf WriteRequests) to any receiver and measure it, or the
same load as gRPC thanos.WriteableStore/RemoteWrite calls, as a Thanos Receive router
forwards it to a receiver.

Usage:
  strata bench remote-write --url URL [flags]

The whole load is encoded before the clock starts: --samples-per-series scrapes of
--series series, one sample a series a scrape, --interval apart in sample time (see --start
for where it begins). The run stops when the load is sent, when --total-samples are sent, or
after --duration, whichever comes first.

How long a run lasts: --samples-per-series or --total-samples fix the load, and --duration
only cuts it short. Without them, --rate sizes the load for --rate over --duration; with
neither, a --duration given sizes the load for 2,000,000 samples/s over it, at most 60
million samples (more than one receiver takes on a small machine, so the clock ends the
run; encoding it takes a few seconds before the clock starts; for longer runs give --rate);
with no --duration either, the load is 120 samples a series, sent as fast as possible (at
most 30 s). Series keep their order: a series' next sample is sent only once the request
with its previous one was answered.

Target:
  --url URL                    remote-write endpoint, e.g. http://127.0.0.1:8080/api/v1/write (required);
                               grpc://HOST:PORT (grpcs:// for TLS): thanos.WriteableStore/RemoteWrite
                               calls instead, each request a Thanos WriteRequest (uncompressed
                               protobuf, as gRPC sends it), --concurrency calls in flight on one
                               HTTP/2 connection; errors are counted by gRPC code
                               (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNAVAILABLE, ...)
  --grpc-compression ALG       gRPC only: snappy (default, as Thanos Receive's router:
                               --receive.grpc-compression; Go's snappy framing format, grpc-encoding:
                               snappy) or none
  --format FORMAT              remote-write (default) or otlp: the same load as OTLP/HTTP metrics
                               (ExportMetricsServiceRequest protobuf, one gauge per metric name, the
                               other labels as attributes: stored as the same series), for
                               http(s) --urls such as http://127.0.0.1:8080/api/v1/otlp/v1/metrics;
                               not with --histogram-share
  --otlp-compression ALG       --format otlp only: gzip (default, as the OpenTelemetry Collector's
                               otlphttp exporter) or none
  --tenant NAME                send the tenant in --tenant-header (gRPC: in WriteRequest.tenant)
  --tenant-header NAME         header naming the tenant (default THANOS-TENANT; Cortex and Mimir: X-Scope-OrgID)
  --header 'NAME: VALUE'       an extra header on every request (repeatable), e.g. Authorization
                               (gRPC: metadata)
  --timeout D                  a request not answered within this fails as a network timeout (default 30s)
  --retries N                  times a request answered 429 (gRPC: RESOURCE_EXHAUSTED) is sent
                               again, after Retry-After (or 1s without one); other failures are
                               counted, not resent (default 3)

TLS, for an https:// or grpcs:// --url (Prometheus' remote_write tls_config; PEM files, read once at the
start); without them an https URL is checked against the system's CAs:
  --tls-ca FILE                CA certificate(s) to check the server's certificate with (ca_file)
  --tls-cert FILE              client certificate, for receivers that require one (cert_file)
  --tls-key FILE               ... and its private key, unencrypted (key_file)
  --tls-server-name NAME       the name the server's certificate must carry (and SNI), when it is
                               not the host of --url (server_name)
  --tls-insecure-skip-verify   do not check the server's certificate (insecure_skip_verify)

Responsiveness, watched while the load runs (see the README):
  --ready-url URL|none         readiness endpoint polled every 100 ms on its own connection: latency
                               p50/p99/max and failures (default: /-/ready on --url's host, as Strata
                               and Prometheus; VictoriaMetrics: /health)
  --metrics-url URL|none       the server's /metrics, scraped before and after the load for its
                               event-loop delay (prom-client's nodejs_eventloop_lag_*, any prefix);
                               a server without them is reported as not measured (default: /metrics
                               on --url's host)
                               A grpc:// --url serves no HTTP: both are off unless given (for Strata,
                               its HTTP address, e.g. --ready-url http://127.0.0.1:8080/-/ready)

Load:
  --profile NAME|FILE.json     node-exporter (about 500 series a host), kube (about 110 a pod),
                               or a JSON profile file (see the README) (default node-exporter)
  --series N                   active series (default 10000)
  --samples-per-series N       samples each series gets (default: enough for --rate, or with
                               --duration alone 2,000,000 samples/s, over --duration, at most
                               60 million samples; else 120)
  --total-samples N            stop after this many samples (rounded up to whole requests)
  --interval D                 time between two samples of a series (default 15s)
  --churn R                    targets (hosts, pods) replaced by new ones each interval, as a share
                               of all targets: 0.01 replaces 1% each scrape (default 0)
  --histogram-share R          share of the series that send native histograms instead of floats,
                               0..1 (default 0)
  --series-per-request N       series in one WriteRequest (default 2000)
  --start TIME                 time of the first sample: RFC 3339, Unix seconds, now-2h (default: so
                               that the last sample is about now, or, if an earlier run sent later
                               samples to the same --url, just after its last one: a receiver
                               refuses samples older than a series' newest; remembered in a file in
                               the temporary directory); the same flags and --start give the same bytes
  --max-encoded SIZE           refuse a load that takes more memory encoded (default 1GiB; gRPC
                               holds the load uncompressed, about 6 times larger)
  --rate N                     samples a second to aim at; 0: as fast as possible (default 0)

Shared:
${commonHelp}

Exit status: 0 when the run finished and at least one request succeeded, 1 when none did,
2 for a flag mistake, 130 after Ctrl-C (the partial results are printed and written).`;

export type ProfileChoice = { kind: 'node-exporter' } | { kind: 'kube' } | { kind: 'file'; path: string };

export interface RemoteWriteConfig extends CommonConfig {
  url: URL;
  profile: ProfileChoice;
  series: number;
  /** undefined: derived from the rate and duration (see the help). */
  samplesPerSeries?: number;
  totalSamples: number;
  intervalMs: number;
  churn: number;
  perRequest: number;
  rate: number;
  headers: Record<string, string>;
  histogramShare: number;
  retries: number;
  timeoutMs: number;
  /** undefined: so that the last sample is about now. */
  start?: number;
  maxEncodedBytes: number;
  /** gRPC messages compressed (--grpc-compression; 'none' for HTTP targets). */
  grpcCompression: GrpcCompression;
  /** --format: remote write 1.0 bodies (or gRPC calls), or OTLP/HTTP protobuf bodies. */
  format: 'remote-write' | 'otlp';
  /** OTLP bodies compressed (--otlp-compression; 'none' unless --format otlp). */
  otlpCompression: OtlpCompression;
  /** https and grpcs only; undefined: the system's CAs, no client certificate. */
  tls?: HttpClientTls;
  /** --tenant; over HTTP it is also in `headers`, over gRPC it goes into WriteRequest.tenant. */
  tenant?: string;
  /** Polled during the load; undefined: --ready-url none. */
  readyUrl?: URL;
  /** Scraped before and after the load for the event-loop delay; undefined: --metrics-url none. */
  metricsUrl?: URL;
}

/** TLS towards an https:// or grpcs:// receiver (the --tls-* flags). */
export interface HttpClientTls extends ClientTlsFiles {
  /** The name to check the server's certificate against (and send as SNI); default: the host of --url. */
  serverName?: string;
  insecureSkipVerify: boolean;
}

/** Samples per series when sending as fast as possible with no count and no --duration given. */
export const DEFAULT_SAMPLES_PER_SERIES = 120;
/**
 * The rate a load given only --duration is sized for: above what one
 * receiver takes on a small machine (Strata about 1.3 M samples/s on 2
 * cores, bench/RESULTS.md), so that the load outlasts --duration and the
 * clock, not the load, ends the run.
 */
export const DURATION_FILL_RATE = 2_000_000;
/** Most samples such a load holds: encoding takes about a second per few million, and memory about 2 bytes each. */
export const DURATION_FILL_MAX_SAMPLES = 60_000_000;
/** Most series a load may have (memory: label bytes and value state per series). */
const MAX_SERIES = 50_000_000;

function parseHeader(value: string): [string, string] {
  const colon = value.indexOf(':');
  const name = colon < 0 ? '' : value.slice(0, colon).trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header: '${value}' is not 'Name: value'`);
  return [name, value.slice(colon + 1).trim()];
}

function parseUrl(value: string | undefined): URL {
  if (value === undefined) throw new UsageError('bench remote-write: --url is required, e.g. --url http://127.0.0.1:8080/api/v1/write or grpc://127.0.0.1:10901');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url: '${value}' is not a URL`);
  }
  if (!['http:', 'https:', 'grpc:', 'grpcs:'].includes(url.protocol)) throw new UsageError(`--url: '${value}' is not an http, https, grpc or grpcs URL`);
  if ((url.protocol === 'grpc:' || url.protocol === 'grpcs:') && (url.hostname === '' || url.port === '' || (url.pathname !== '' && url.pathname !== '/'))) {
    throw new UsageError(`--url: '${value}' is not grpc://HOST:PORT (the method is always thanos.WriteableStore/RemoteWrite)`);
  }
  return url;
}

interface TlsFlagValues {
  'tls-insecure-skip-verify': boolean;
  'tls-ca'?: string | undefined;
  'tls-cert'?: string | undefined;
  'tls-key'?: string | undefined;
  'tls-server-name'?: string | undefined;
}

/** The --tls-* flags; undefined when none is given. They are refused for an http:// URL, where they would do nothing. */
function httpClientTls(v: TlsFlagValues, url: URL): HttpClientTls | undefined {
  const named = (['tls-ca', 'tls-cert', 'tls-key', 'tls-server-name'] as const).find((f) => v[f] !== undefined);
  const given = named ?? (v['tls-insecure-skip-verify'] ? 'tls-insecure-skip-verify' : undefined);
  if (given === undefined) return undefined;
  if (url.protocol !== 'https:' && url.protocol !== 'grpcs:') throw new UsageError(`--${given}: only for an https:// or grpcs:// --url, not '${url.href}'`);
  const files = readClientTls({ ca: 'tls-ca', cert: 'tls-cert', key: 'tls-key' }, { ca: v['tls-ca'], cert: v['tls-cert'], key: v['tls-key'] });
  const name = v['tls-server-name'];
  return { ...files, ...(name === undefined ? {} : { serverName: serverNameFlag('tls-server-name', name) }), insecureSkipVerify: v['tls-insecure-skip-verify'] };
}

/** --ready-url and --metrics-url: `path` on --url's host by default; 'none': off. */
function sideUrl(flag: string, value: string | undefined, url: URL, path: string): URL | undefined {
  if (value === 'none') return undefined;
  if (value === undefined) return new URL(path, url.origin);
  try {
    const side = new URL(value);
    if (side.protocol === 'http:' || side.protocol === 'https:') return side;
  } catch {
    // not a URL: said below
  }
  throw new UsageError(`--${flag}: '${value}' is not an http or https URL (or none)`);
}

/** --profile: a built-in profile's name or a .json file. */
export function parseProfile(value: string): ProfileChoice {
  if (value === 'node-exporter' || value === 'node') return { kind: 'node-exporter' };
  if (value === 'kube' || value === 'kubernetes') return { kind: 'kube' };
  if (value.endsWith('.json')) return { kind: 'file', path: value };
  throw new UsageError(`--profile: '${value}' is not node-exporter, kube or a .json file`);
}

/** Parses the flags after `strata bench remote-write`; 'help' for --help. */
export function parseRemoteWriteArgs(args: string[]): RemoteWriteConfig | 'help' {
  const { values: v, positionals } = parseArgs({ args, options: remoteWriteOptions, strict: true, allowPositionals: true });
  if (v.help) return 'help';
  noPositionals('remote-write', positionals);
  const common = parseCommon(v);
  const headers: Record<string, string> = {};
  for (const h of v.header) {
    const [name, value] = parseHeader(h);
    headers[name] = value;
  }
  const url = parseUrl(v.url);
  const grpc = url.protocol === 'grpc:' || url.protocol === 'grpcs:';
  if (v.tenant !== undefined) {
    if (v.tenant === '') throw new UsageError('--tenant: must not be empty');
    // Over gRPC the tenant is a field of the message (grpc-frames.ts), as Thanos sends it.
    if (!grpc) headers[parseHeader(`${v['tenant-header']}: x`)[0]] = v.tenant;
  }
  const start = v.start === undefined ? undefined : timeFlag('start', v.start);
  if (start !== undefined && start < 0) throw new UsageError(`--start: '${v.start}' is before 1970`);
  const tls = httpClientTls(v, url);
  const config: RemoteWriteConfig = {
    ...common,
    url,
    profile: parseProfile(v.profile),
    series: intFlag('series', v.series, 1, MAX_SERIES),
    totalSamples: v['total-samples'] === undefined ? 0 : intFlag('total-samples', v['total-samples'], 1),
    intervalMs: positiveDuration('interval', v.interval),
    churn: numberFlag('churn', v.churn, 0, 1),
    perRequest: intFlag('series-per-request', v['series-per-request'], 1, 1_000_000),
    rate: numberFlag('rate', v.rate, 0, 1e12),
    headers,
    histogramShare: numberFlag('histogram-share', v['histogram-share'], 0, 1),
    retries: intFlag('retries', v.retries, 0, 100),
    timeoutMs: positiveDuration('timeout', v.timeout),
    maxEncodedBytes: parseBytes('max-encoded', v['max-encoded']),
    grpcCompression: grpcCompression(v['grpc-compression'], grpc),
    format: 'remote-write',
    otlpCompression: 'none',
  };
  if (v.format === 'otlp') {
    if (grpc) throw new UsageError(`--format otlp: OTLP is sent over HTTP; --url '${url.href}' is a gRPC address`);
    if (config.histogramShare > 0) throw new UsageError('--format otlp: native histograms are not sent as OTLP; leave --histogram-share at 0');
    config.format = 'otlp';
    config.otlpCompression = otlpCompression(v['otlp-compression']);
  } else if (v.format !== 'remote-write') {
    throw new UsageError(`--format: '${v.format}' is not remote-write or otlp`);
  }
  if (grpc && config.grpcCompression === 'snappy') headers['grpc-encoding'] = 'snappy';
  if (v['samples-per-series'] !== undefined) config.samplesPerSeries = intFlag('samples-per-series', v['samples-per-series'], 1, 10_000_000);
  if (start !== undefined) config.start = start;
  if (tls !== undefined) config.tls = tls;
  if (v.tenant !== undefined) config.tenant = v.tenant;
  // A gRPC address serves no HTTP: no probe by default there (give the server's HTTP URLs to have them).
  const sideDefault = grpc ? 'none' : undefined;
  const readyUrl = sideUrl('ready-url', v['ready-url'] ?? sideDefault, url, '/-/ready');
  if (readyUrl !== undefined) config.readyUrl = readyUrl;
  const metricsUrl = sideUrl('metrics-url', v['metrics-url'] ?? sideDefault, url, '/metrics');
  if (metricsUrl !== undefined) config.metricsUrl = metricsUrl;
  if (config.maxEncodedBytes === 0) throw new UsageError('--max-encoded: must be more than 0');
  return config;
}

function otlpCompression(value: string): OtlpCompression {
  if (value !== 'gzip' && value !== 'none') throw new UsageError(`--otlp-compression: '${value}' is not gzip or none`);
  return value;
}

function grpcCompression(value: string, grpc: boolean): GrpcCompression {
  if (value !== 'snappy' && value !== 'none') throw new UsageError(`--grpc-compression: '${value}' is not snappy or none`);
  return grpc ? value : 'none';
}

/**
 * Samples each series gets: as given; else enough for --total-samples;
 * else enough for --rate over --duration; else, when --duration was given,
 * enough for {@link DURATION_FILL_RATE} over it (at most
 * {@link DURATION_FILL_MAX_SAMPLES}); else the default.
 */
export function scrapesFor(c: Pick<RemoteWriteConfig, 'samplesPerSeries' | 'totalSamples' | 'series' | 'rate' | 'durationMs' | 'durationGiven'>): number {
  if (c.samplesPerSeries !== undefined) return c.samplesPerSeries;
  if (c.totalSamples > 0) return Math.ceil(c.totalSamples / c.series);
  if (c.rate > 0) return Math.max(1, Math.ceil((c.rate * c.durationMs) / 1000 / c.series));
  if (c.durationGiven) {
    const samples = Math.min(DURATION_FILL_MAX_SAMPLES, (DURATION_FILL_RATE * c.durationMs) / 1000);
    return Math.max(1, Math.ceil(samples / c.series));
  }
  return DEFAULT_SAMPLES_PER_SERIES;
}
