/**
 * Flags of `strata bench store-api`: the Store API address, which calls
 * (Series with or without chunks, LabelNames, LabelValues), their
 * matchers, time range and shards, from flags or a JSON file, TLS with
 * Thanos Query's --grpc-client-tls-* flags, plus the shared flags.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { UsageError } from '../../config/usage-error.js';
import { parseSelector } from '../../index/selector.js';
import { LabelMatcher_Type, type LabelMatcher } from '../../gen/thanos/store/types.js';
import { commonHelp, commonOptions, intFlag, noPositionals, parseCommon, positiveDuration, timeFlag, type CommonConfig } from '../run/flags.js';
import { readClientTls, serverNameFlag, type ClientTlsFiles } from '../run/tls-files.js';

export const CALLS = ['series', 'series-skip-chunks', 'label-names', 'label-values'] as const;
export type CallKind = (typeof CALLS)[number];

/** One query the workers send in turn. */
export interface StoreQuery {
  call: CallKind;
  /** The selector as given (for names in the report). */
  match: string;
  matchers: LabelMatcher[];
  start: number;
  end: number;
  /** label-values: the label. */
  label: string;
  /** Series: ask shard k of `shards` in turn (0 or 1: no sharding). */
  shards: number;
  limit: number;
}

export const storeApiOptions = {
  ...commonOptions,
  addr: { type: 'string' },
  call: { type: 'string', multiple: true, default: [] as string[] },
  match: { type: 'string', multiple: true, default: [] as string[] },
  label: { type: 'string', multiple: true, default: [] as string[] },
  start: { type: 'string', default: 'now-1h' },
  end: { type: 'string', default: 'now' },
  shards: { type: 'string', default: '0' },
  limit: { type: 'string', default: '0' },
  queries: { type: 'string' },
  requests: { type: 'string', default: '0' },
  timeout: { type: 'string', default: '60s' },
  // Thanos Query's client flags, so that its command lines carry over.
  'grpc-client-tls-secure': { type: 'boolean', default: false },
  'grpc-client-tls-ca': { type: 'string' },
  'grpc-client-tls-cert': { type: 'string' },
  'grpc-client-tls-key': { type: 'string' },
  'grpc-client-server-name': { type: 'string' },
  'grpc-client-tls-skip-verify': { type: 'boolean', default: false },
} as const;

export const storeApiHelp = `strata bench store-api: Series, LabelNames and LabelValues load against any Thanos
Store API (Strata, Thanos sidecar, Receive, Store Gateway), over gRPC, plaintext or TLS.

Usage:
  strata bench store-api --addr HOST:PORT [flags]

The workers send the queries in turn: every --call with every --match (and, for
label-values, every --label), or the queries of --queries FILE. Reported: series/s,
frames/s, MB/s received, latency percentiles, per call and in all, and gRPC errors by code.

Target and queries:
  --addr HOST:PORT       the Store API's gRPC address (required)
  --call KIND            series, series-skip-chunks (labels only), label-names or label-values;
                         repeatable or comma-separated (default series)
  --match SELECTOR       a PromQL series selector, e.g. '{job="node", mode!="idle"}'; repeatable:
                         each is one query (default {__name__=~".+"})
  --label NAME           the label of label-values calls; repeatable (default __name__)
  --start TIME           RFC 3339, Unix seconds, now or now-DURATION (default now-1h)
  --end TIME             likewise (default now)
  --shards N             Series calls ask one of N shards (shard_info, by all labels), shard
                         after shard in turn; 0: no sharding (default 0)
  --limit N              the calls' limit field; 0: none (default 0)
  --queries FILE         a JSON array of queries instead of the flags above, each
                         {"call": "series", "match": "{job=\\"node\\"}", "start": "now-2h",
                          "end": "now", "label": "instance", "shards": 4, "limit": 0}
  --requests N           stop after N calls; 0: no count, only --duration (default 0)
  --timeout D            a call not finished within this fails as DEADLINE_EXCEEDED (default 60s)

TLS (Thanos Query's client flags; the files are PEM, read once at the start):
  --grpc-client-tls-secure        use TLS; the server's certificate is checked against the
                                  system's CAs unless --grpc-client-tls-ca is given
  --grpc-client-tls-ca FILE       CA certificate(s) to check the server's certificate with
  --grpc-client-tls-cert FILE     client certificate, for servers that require one (mutual TLS)
  --grpc-client-tls-key FILE      ... and its private key (unencrypted)
  --grpc-client-server-name NAME  the name the server's certificate must carry (and SNI), when
                                  it is not the host of --addr
  --grpc-client-tls-skip-verify   do not check the server's certificate (self-signed servers;
                                  measures only, proves nothing about the server)
  Without --grpc-client-tls-secure the other TLS flags are refused (Thanos would ignore them).

Shared:
${commonHelp}

Exit status: 0 when at least one call succeeded, 1 when none did, 2 for a flag mistake,
130 after Ctrl-C (the partial results are printed and written).`;

/** TLS towards the Store API (--grpc-client-tls-secure and the flags beside it). */
export interface GrpcClientTls extends ClientTlsFiles {
  /** The name to check the server's certificate against (and send as SNI); default: the host of --addr. */
  serverName?: string;
  skipVerify: boolean;
}

export interface StoreApiConfig extends CommonConfig {
  addr: string;
  /** undefined: plaintext gRPC. */
  tls?: GrpcClientTls;
  queries: StoreQuery[];
  /** 0: only the duration bounds the run. */
  requests: number;
  timeoutMs: number;
}

const QueriesFileSchema = Type.Array(Type.Object({
  call: Type.Union(CALLS.map((c) => Type.Literal(c))),
  match: Type.Optional(Type.String()),
  start: Type.Optional(Type.String()),
  end: Type.Optional(Type.String()),
  label: Type.Optional(Type.String({ minLength: 1 })),
  shards: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 0 })),
}, { additionalProperties: false }), { minItems: 1 });
const checkQueries = TypeCompiler.Compile(QueriesFileSchema);

/** The most queries a run cycles through (a file or the flags' product). */
const MAX_QUERIES = 100_000;
const DEFAULT_MATCH = '{__name__=~".+"}';

function matchersOf(flag: string, selector: string): LabelMatcher[] {
  try {
    // Prometheus' and Thanos' matcher types are numbered alike (EQ, NEQ, RE, NRE).
    return parseSelector(selector).map((m) => ({ type: m.type as number as LabelMatcher_Type, name: m.name, value: m.value }));
  } catch (err) {
    throw new UsageError(`${flag}: '${selector}': ${(err as Error).message}`);
  }
}

function parseAddr(value: string | undefined): string {
  if (value === undefined) throw new UsageError('bench store-api: --addr is required, e.g. --addr 127.0.0.1:10901');
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:/\s]+):(\d+)$/.exec(value);
  if (m === null || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new UsageError(`--addr: '${value}' is not HOST:PORT`);
  return value;
}

function parseCalls(values: string[]): CallKind[] {
  const out: CallKind[] = [];
  for (const v of values.flatMap((x) => x.split(','))) {
    const c = v.trim();
    if (!(CALLS as readonly string[]).includes(c)) throw new UsageError(`--call: '${c}' is not one of ${CALLS.join(', ')}`);
    if (!out.includes(c as CallKind)) out.push(c as CallKind);
  }
  return out.length === 0 ? ['series'] : out;
}

function timeRange(flag: string, startText: string, endText: string, now: number): { start: number; end: number } {
  const start = timeFlag(`${flag}start`, startText, now);
  const end = timeFlag(`${flag}end`, endText, now);
  if (end < start) throw new UsageError(`--${flag}end: ${endText} is before ${startText}`);
  return { start, end };
}

function queriesFromFile(file: string, now: number): StoreQuery[] {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(`--queries: ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`);
  }
  if (!checkQueries.Check(value)) {
    const e = checkQueries.Errors(value).First();
    throw new UsageError(`--queries: ${file}: ${e === undefined ? 'not a list of queries' : `${e.path || '/'}: ${e.message}`}`);
  }
  if (value.length > MAX_QUERIES) throw new UsageError(`--queries: ${file}: more than ${MAX_QUERIES} queries`);
  return value.map((q, i) => {
    const match = q.match ?? DEFAULT_MATCH;
    const { start, end } = timeRange(`queries: ${file}: /${i}/`, q.start ?? 'now-1h', q.end ?? 'now', now);
    return { call: q.call, match, matchers: matchersOf(`--queries: ${file}: /${i}/match`, match), start, end, label: q.label ?? '__name__', shards: q.shards ?? 0, limit: q.limit ?? 0 };
  });
}

interface TlsFlagValues {
  'grpc-client-tls-secure': boolean;
  'grpc-client-tls-skip-verify': boolean;
  'grpc-client-tls-ca'?: string | undefined;
  'grpc-client-tls-cert'?: string | undefined;
  'grpc-client-tls-key'?: string | undefined;
  'grpc-client-server-name'?: string | undefined;
}

/** The TLS flags; undefined without --grpc-client-tls-secure (and then no other TLS flag may be given). */
function grpcClientTls(v: TlsFlagValues): GrpcClientTls | undefined {
  if (!v['grpc-client-tls-secure']) {
    const named = (['grpc-client-tls-ca', 'grpc-client-tls-cert', 'grpc-client-tls-key', 'grpc-client-server-name'] as const).find((f) => v[f] !== undefined);
    const given = named ?? (v['grpc-client-tls-skip-verify'] ? 'grpc-client-tls-skip-verify' : undefined);
    if (given !== undefined) throw new UsageError(`--${given}: needs --grpc-client-tls-secure (without it the calls are plaintext)`);
    return undefined;
  }
  const files = readClientTls(
    { ca: 'grpc-client-tls-ca', cert: 'grpc-client-tls-cert', key: 'grpc-client-tls-key' },
    { ca: v['grpc-client-tls-ca'], cert: v['grpc-client-tls-cert'], key: v['grpc-client-tls-key'] },
  );
  const name = v['grpc-client-server-name'];
  return { ...files, ...(name === undefined ? {} : { serverName: serverNameFlag('grpc-client-server-name', name) }), skipVerify: v['grpc-client-tls-skip-verify'] };
}

/** Parses the flags after `strata bench store-api`; 'help' for --help. */
export function parseStoreApiArgs(args: string[], now = Date.now()): StoreApiConfig | 'help' {
  const { values: v, positionals } = parseArgs({ args, options: storeApiOptions, strict: true, allowPositionals: true });
  if (v.help) return 'help';
  noPositionals('store-api', positionals);
  const common = parseCommon(v);
  const addr = parseAddr(v.addr);
  const shards = intFlag('shards', v.shards, 0, 1_000_000);
  const limit = intFlag('limit', v.limit, 0);
  let queries: StoreQuery[];
  if (v.queries !== undefined) {
    if (v.call.length > 0 || v.match.length > 0 || v.label.length > 0) throw new UsageError('--queries: give the queries either in the file or with --call, --match and --label, not both');
    queries = queriesFromFile(v.queries, now);
  } else {
    const { start, end } = timeRange('', v.start, v.end, now);
    const calls = parseCalls(v.call);
    const selectors = v.match.length > 0 ? v.match : [DEFAULT_MATCH];
    const matchers = selectors.map((s) => matchersOf('--match', s));
    for (const l of v.label) if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(l)) throw new UsageError(`--label: '${l}' is not a label name`);
    const labels = v.label.length > 0 ? v.label : ['__name__'];
    queries = [];
    for (const call of calls) {
      selectors.forEach((match, k) => {
        for (const label of call === 'label-values' ? labels : ['__name__']) queries.push({ call, match, matchers: matchers[k]!, start, end, label, shards, limit });
      });
    }
    if (queries.length > MAX_QUERIES) throw new UsageError(`bench store-api: ${queries.length} queries; at most ${MAX_QUERIES}`);
  }
  const tls = grpcClientTls(v);
  return {
    ...common,
    addr,
    ...(tls === undefined ? {} : { tls }),
    queries,
    requests: intFlag('requests', v.requests, 0),
    timeoutMs: positiveDuration('timeout', v.timeout),
  };
}
