/**
 * The shapes the library's calls take and give: label sets, series to
 * append, matchers, series read. Times are milliseconds since the Unix
 * epoch everywhere, both ends of a range inclusive.
 */
import type { HistogramSample } from './histogram-types.js';

/**
 * A label set: an object `{ name: value }`, or `[name, value]` pairs (in
 * any order; they are sorted). Names and values must not be empty, and
 * names must not repeat.
 *
 * @example
 * const a: LabelsInput = { __name__: 'http_requests_total', job: 'api' };
 * const b: LabelsInput = [['__name__', 'http_requests_total'], ['job', 'api']];
 */
export type LabelsInput = Readonly<Record<string, string>> | ReadonlyArray<readonly [string, string]>;

/**
 * A label set as read: names in UTF-8 byte order (the object's key order).
 *
 * @example
 * for await (const s of store.select('up')) console.log(s.labels.job);
 */
export type Labels = Record<string, string>;

/**
 * Samples of one series to append: floats, native histograms, or both.
 * `timestamps[i]` (whole milliseconds) belongs to `values[i]`. Typed
 * arrays are read in place; a Float64Array's value bits are copied
 * exactly, so NaN payloads such as Prometheus' stale marker survive (a
 * plain array of numbers may not keep them). A series of histograms only
 * leaves `timestamps` and `values` out.
 *
 * @example
 * const s: SeriesInput = { labels: { __name__: 'up', job: 'api' }, timestamps: [1000, 2000], values: [1, 1] };
 * const t: SeriesInput = { labels: { __name__: 'up' }, timestamps: BigInt64Array.of(1000n), values: Float64Array.of(1) };
 * const h: SeriesInput = {
 *   labels: { __name__: 'rpc_seconds' },
 *   histograms: [{ timestamp: 1000, float: false, histogram: {
 *     counterResetHint: 0, schema: 0, zeroThreshold: 1e-128, zeroCount: 0, count: 2, sum: 3,
 *     positiveSpans: [{ offset: 1, length: 1 }], positiveBuckets: [2], negativeSpans: [], negativeBuckets: [],
 *   } }],
 * };
 */
export interface SeriesInput {
  labels: LabelsInput;
  /** Times of the float samples; required with `values`. */
  timestamps?: ArrayLike<number> | BigInt64Array;
  values?: ArrayLike<number>;
  /**
   * Native histogram samples, integer (`float: false`) or float
   * (`float: true`), each with its timestamp. They take remote write's
   * path as floats do: a histogram Prometheus would refuse (an unknown
   * schema, spans and buckets that disagree, a negative bucket count, a
   * count below its buckets' sum) is refused alone, with an
   * InvalidArgumentError naming its series and what was wrong, and the
   * rest is stored.
   */
  histograms?: Iterable<HistogramSample>;
}

/**
 * Options of one append.
 *
 * @example
 * await store.append(series, { tenant: 'team-a' });
 */
export interface AppendOptions {
  /**
   * The tenant the series are written for (as Thanos Receive's
   * THANOS-TENANT header): stored as the tenant label (tenantLabelName,
   * default `tenant_id`) on each series, overriding a label of that name.
   * Default `default-tenant`.
   */
  tenant?: string;
}

/**
 * What an append stored.
 *
 * @example
 * const { samples, histograms } = await store.append(series);
 */
export interface AppendResult {
  /** Float samples stored (a sample equal to the one stored at its timestamp counts, stored once). */
  samples: number;
  /** Native histogram samples stored, counted as float samples are. */
  histograms: number;
}

/**
 * A matcher's operator: equal, not equal, matches, does not match.
 * Regular expressions are Go RE2, fully anchored, as in Prometheus.
 *
 * @example
 * const op: MatchOperator = '=~';
 */
export type MatchOperator = '=' | '!=' | '=~' | '!~';

/**
 * A condition on one label. A series without the label has it with the
 * empty value, as in Prometheus.
 *
 * @example
 * const m: Matcher = { name: 'path', type: '=~', value: '/api/v1/.*' };
 */
export interface Matcher {
  name: string;
  /** Default `=`. */
  type?: MatchOperator;
  value: string;
}

/**
 * Which series: a PromQL series selector (`up{job="api"}`,
 * `{__name__=~"http_.*"}`), or matchers that must all hold (none: every
 * series).
 *
 * @example
 * store.select('http_requests_total{code=~"5.."}');
 * store.select([{ name: '__name__', value: 'http_requests_total' }, { name: 'code', type: '=~', value: '5..' }]);
 */
export type Selector = string | readonly Matcher[];

/**
 * A time: milliseconds since the Unix epoch, or a Date.
 *
 * @example
 * store.select('up', { minTime: Date.now() - 3_600_000, maxTime: new Date() });
 */
export type Time = number | Date;

/**
 * The range and scope of a read.
 *
 * @example
 * const names = await store.labelNames({ selector: 'up', minTime: 0, maxTime: Date.now() });
 */
export interface RangeOptions {
  /** Oldest time to read (inclusive); default: all. */
  minTime?: Time;
  /** Newest time to read (inclusive); default: all. */
  maxTime?: Time;
  /** Only series of this tenant (a matcher on the tenant label). */
  tenant?: string;
  /** At most this many results (series, names or values); 0 or absent: all. */
  limit?: number;
}

/**
 * Options of labelNames and labelValues.
 *
 * @example
 * const jobs = await store.labelValues('job', { selector: '{__name__="up"}' });
 */
export interface LabelOptions extends RangeOptions {
  /** Only labels of series it selects; default: every series. */
  selector?: Selector;
}

/**
 * Options of select.
 *
 * @example
 * for await (const s of store.select('up', { minTime: 0, chunks: true })) console.log(s.chunks.length);
 */
export interface SelectOptions extends RangeOptions {
  /** Raw chunks as stored instead of decoded samples. */
  chunks?: boolean;
}

/**
 * A series read with its samples in the range, oldest first: float
 * samples in `timestamps` and `values`, native histograms (decoded from
 * their chunks) in `histograms`.
 *
 * @example
 * for await (const { labels, timestamps, values, histograms } of store.select('{job="api"}')) {
 *   for (let i = 0; i < timestamps.length; i++) console.log(labels.__name__, timestamps[i], values[i]);
 *   for (const { timestamp, float, histogram } of histograms ?? []) console.log(labels.__name__, timestamp, float, histogram.count);
 * }
 */
export interface SeriesSamples {
  /** Its labels, as the Store API answers them: the tenant label and the store's external labels included. */
  labels: Labels;
  /** Milliseconds since the epoch of the float samples, ascending (empty for a series of histograms only). Owned by the caller. */
  timestamps: Float64Array;
  /** The values, raw float64 bits kept (NaN payloads such as the stale marker survive). Owned by the caller. */
  values: Float64Array;
  /**
   * The native histogram samples, ascending by timestamp; absent when
   * the series has none in the range. Each says whether it is an integer
   * histogram (`float: false`, bucket deltas) or a float one, and reads
   * as Prometheus' chunk iterator reports it: the counter reset hint as
   * the chunk implies it (not necessarily as appended), a stale marker
   * with every field but `sum` zero. The shape append takes: they can be
   * appended elsewhere as they are. Owned by the caller.
   */
  histograms?: HistogramSample[];
}

/**
 * A chunk as stored: Prometheus' chunk encoding, byte for byte.
 *
 * @example
 * if (chunk.encoding === 'XOR') fs.writeFileSync('chunk.bin', chunk.data);
 */
export interface Chunk {
  /** Times of its first and last sample (it may reach past the range asked for). */
  minTime: number;
  maxTime: number;
  /** Prometheus' name of the encoding: `XOR` (floats), `histogram`, `floathistogram`. */
  encoding: 'XOR' | 'histogram' | 'floathistogram';
  /** The bytes (a copy, owned by the caller). */
  data: Uint8Array;
}

/**
 * A series read with its chunks overlapping the range, by min time.
 *
 * @example
 * for await (const s of store.select('up', { chunks: true })) for (const c of s.chunks) console.log(c.minTime, c.data.length);
 */
export interface SeriesChunks {
  labels: Labels;
  chunks: Chunk[];
}

/**
 * Where a listener listens.
 *
 * @example
 * const { grpc } = await store.listen({ grpcAddress: '127.0.0.1:0' });
 * console.log(grpc?.address);  // 127.0.0.1:40213
 */
export interface BoundAddress {
  host: string;
  /** The port bound (the one picked when 0 was asked for). */
  port: number;
  /** `host:port`, an IPv6 host in brackets: what a client dials. */
  address: string;
}

/**
 * The listeners running.
 *
 * @example
 * const { http } = store.listening;
 * if (http) await fetch(`http://${http.address}/-/ready`);
 */
export interface Listening {
  /** The Store API, WriteableStore, Info, Exemplars and Metadata over gRPC. */
  grpc?: BoundAddress;
  /** Remote write (unless it has its own listener) and read, the Prometheus label API, probes, /metrics and the JSON resources. */
  http?: BoundAddress;
  /** Remote write, when it has a listener of its own (remoteWriteAddress). */
  remoteWrite?: BoundAddress;
}

/**
 * Addresses to listen on, `host:port` (`[v6]:port`, `:port` for every
 * interface; port 0 picks a free one).
 *
 * @example
 * await store.listen({ httpAddress: '127.0.0.1:8080' });
 */
export interface ListenOptions {
  /** As --grpc-address. */
  grpcAddress?: string;
  /** As --http-address. */
  httpAddress?: string;
}

/**
 * What the store holds now.
 *
 * @example
 * const { headSeries, minTime } = store.stats();
 */
export interface StoreStats {
  /** Series in the head (the last hours). */
  headSeries: number;
  /** Blocks on disk. */
  blocks: number;
  /** Oldest and newest sample held; undefined when empty. */
  minTime: number | undefined;
  maxTime: number | undefined;
}
