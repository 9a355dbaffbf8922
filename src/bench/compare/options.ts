/**
 * Flags of `strata bench compare`: the remote-write load's flags (the same
 * load goes to every server), which servers, the remote reads, and how
 * long to wait for a quiet machine.
 */
import { parseArgs } from 'node:util';
import type { GrpcCompression } from '../remote-write/grpc-frames.js';
import { UsageError } from '../../config/usage-error.js';
import { parseBytes } from '../../config/bytes.js';
import { commonOptions, intFlag, noPositionals, numberFlag, parseCommon, positiveDuration, timeFlag, type CommonConfig } from '../run/flags.js';
import { parseDuration } from '../../config/duration-flag.js';
import { parseProfile, type ProfileChoice } from '../remote-write/options.js';
import type { PeerName } from './peers.js';

/** Every server --peers can name; strata-grpc is Strata written to over gRPC (peers.ts). */
export const PEERS: readonly PeerName[] = ['strata', 'strata-grpc', 'victoriametrics', 'prometheus'];
/** The servers compared when --peers is not given. */
const DEFAULT_PEERS: readonly PeerName[] = ['strata', 'victoriametrics', 'prometheus'];

export const compareOptions = {
  ...commonOptions,
  duration: { type: 'string', default: '30m' },
  peers: { type: 'string', default: DEFAULT_PEERS.join(',') },
  profile: { type: 'string', default: 'node-exporter' },
  series: { type: 'string', default: '100000' },
  'samples-per-series': { type: 'string', default: '120' },
  interval: { type: 'string', default: '15s' },
  churn: { type: 'string', default: '0' },
  'series-per-request': { type: 'string', default: '2000' },
  rate: { type: 'string', default: '0' },
  'histogram-share': { type: 'string', default: '0' },
  start: { type: 'string' },
  'max-encoded': { type: 'string', default: '2GiB' },
  'grpc-compression': { type: 'string', default: 'snappy' },
  reads: { type: 'string', default: '20s' },
  'quiet-wait': { type: 'string', default: '120s' },
  attempts: { type: 'string', default: '3' },
  markdown: { type: 'string' },
} as const;

export const compareHelp = `strata bench compare: the same remote-write load against Strata, VictoriaMetrics and
Prometheus (remote-write receiver) found on the PATH, one after another on this machine,
each on a fresh temporary directory on 127.0.0.1; then the same remote reads against
Strata and Prometheus. For each server: samples/s, request latency, server CPU, peak RSS,
what it holds afterwards (counted back), disk bytes per sample once persisted, read
latency, and how responsive it stays under the load (readiness GET every 100 ms; Strata's
event-loop delay from its /metrics). The markdown puts issue 14's targets side by side
(Strata/VictoriaMetrics, Strata/Prometheus), each met or not met. Needs the Debian
packages victoria-metrics and prometheus for those two.

Usage:
  strata bench compare [flags]

Servers and method:
  --peers LIST              which servers, in order (default strata,victoriametrics,prometheus;
                            victoria-metrics is taken too); strata-grpc is Strata written to with gRPC
                            thanos.WriteableStore/RemoteWrite calls (as a Thanos Receive router writes;
                            the same requests, as --grpc-compression says) instead of HTTP remote write:
                            --peers strata,strata-grpc puts the two side by side, with the ratio
                            gRPC/HTTP of samples/s and of server CPU a sample
  --grpc-compression ALG    strata-grpc's calls: snappy (default, as a Receive router:
                            --receive.grpc-compression) or none
  --reads D                 time bound of each remote-read case; 0s skips the reads (default 20s)
  --quiet-wait D            before each server, wait up to this long for a quiet machine (default 120s; 0s: don't)
  --attempts N              run a server again (up to N times in all) when other work took over 5%
                            of the machine during its load; the cleanest run is kept (default 3)
  --markdown FILE           also write the results as a markdown section (bench/RESULTS.md's form)

Load (as strata bench remote-write; encoded once, the same bytes for every server):
  --profile NAME|FILE.json  node-exporter, kube or a JSON profile file (default node-exporter)
  --series N                (default 100000)
  --samples-per-series N    (default 120)
  --interval D              (default 15s)
  --churn R                 (default 0)
  --histogram-share R       share of series sending native histograms; a server that refuses them
                            answers 4xx for those requests (default 0)
  --series-per-request N    (default 2000)
  --rate N                  samples a second; 0: as fast as possible (default 0)
  --start TIME              first sample (default: a 2-hour boundary at least two hours back, so the
                            load sits in one block range, in the past)
  --max-encoded SIZE        (default 2GiB)

Shared:
  --duration D              longest time the load may take per server (default 30m)
  --concurrency N           requests in flight (default 4)
  --json FILE               the results as JSON, one run per server (docs/format/bench-json.md)
  --report FILE.html        one page with every server's throughput and latency over time
  --progress-interval D     progress line interval when not on a terminal (default 5s)
  -h, --help                print this help

Exit status: 0 when every server took the load, 1 when a server failed, 2 for a flag
mistake or a missing server, 130 after Ctrl-C (what was measured is printed and written).`;

export interface CompareConfig extends CommonConfig {
  peers: PeerName[];
  profile: ProfileChoice;
  series: number;
  samplesPerSeries: number;
  intervalMs: number;
  churn: number;
  perRequest: number;
  rate: number;
  histogramShare: number;
  start?: number;
  maxEncodedBytes: number;
  /** How strata-grpc's calls are compressed (--grpc-compression). */
  grpcCompression: GrpcCompression;
  /** 0: no reads. */
  readMs: number;
  quietWaitMs: number;
  attempts: number;
  markdown?: string;
}

function parsePeers(value: string): PeerName[] {
  const out: PeerName[] = [];
  // The binaries' names (victoria-metrics) are taken as well as the peers'.
  for (const p of value.split(',').map((s) => s.trim().replace(/^victoria-metrics$/, 'victoriametrics')).filter((s) => s !== '')) {
    if (!(PEERS as readonly string[]).includes(p)) throw new UsageError(`--peers: '${p}' is not one of ${PEERS.join(', ')}`);
    if (!out.includes(p as PeerName)) out.push(p as PeerName);
  }
  if (out.length === 0) throw new UsageError('--peers: name at least one server');
  return out;
}

export function parseCompareArgs(args: string[]): CompareConfig | 'help' {
  const { values: v, positionals } = parseArgs({ args, options: compareOptions, strict: true, allowPositionals: true });
  if (v.help) return 'help';
  noPositionals('compare', positionals);
  const config: CompareConfig = {
    ...parseCommon(v),
    peers: parsePeers(v.peers),
    profile: parseProfile(v.profile),
    series: intFlag('series', v.series, 1, 50_000_000),
    samplesPerSeries: intFlag('samples-per-series', v['samples-per-series'], 1, 10_000_000),
    intervalMs: positiveDuration('interval', v.interval),
    churn: numberFlag('churn', v.churn, 0, 1),
    perRequest: intFlag('series-per-request', v['series-per-request'], 1, 1_000_000),
    rate: numberFlag('rate', v.rate, 0, 1e12),
    histogramShare: numberFlag('histogram-share', v['histogram-share'], 0, 1),
    maxEncodedBytes: parseBytes('max-encoded', v['max-encoded']),
    grpcCompression: grpcCompressionFlag(v['grpc-compression']),
    readMs: parseDuration('reads', v.reads),
    quietWaitMs: parseDuration('quiet-wait', v['quiet-wait']),
    attempts: intFlag('attempts', v.attempts, 1, 10),
  };
  if (v.start !== undefined) config.start = timeFlag('start', v.start);
  if (v.markdown !== undefined) config.markdown = v.markdown;
  if (config.maxEncodedBytes === 0) throw new UsageError('--max-encoded: must be more than 0');
  return config;
}

function grpcCompressionFlag(value: string): GrpcCompression {
  if (value !== 'snappy' && value !== 'none') throw new UsageError(`--grpc-compression: '${value}' is not snappy or none`);
  return value;
}
