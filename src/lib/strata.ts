/**
 * Strata as a library: the Strata class, one open store. `strata serve`
 * is a thin layer over it (src/cli/serve.ts): both start the same parts in
 * the same order (parts.ts) from the same options (options.ts).
 */
import { instantiateHeadWasm } from '../wasm/head.js';
import { EngineSource } from '../store/engine-source.js';
import { ExternalLabels } from '../store/external-labels.js';
import { decorateSource } from '../store/store-stack.js';
import type { LabelNamesQuery, SeriesSet, StoreSource } from '../store/store-source.js';
import { MatchType, type LabelMatcher } from '../index/index.js';
import { publicError } from './error-map.js';
import { ClosedError, DataDirInUseError, InvalidArgumentError } from './errors.js';
import type { StrataOptions } from './options.js';
import { listenOn, startParts, stopParts, type Parts } from './parts.js';
import { readSeries, type OpenReads } from './read-series.js';
import { hostPort, resolveOptions, type ResolvedOptions } from './resolve-options.js';
import { toLimit, toMatchers, toMs } from './selector.js';
import type {
  AppendOptions, AppendResult, BoundAddress, LabelOptions, Listening, ListenOptions, RangeOptions, Selector, SelectOptions,
  SeriesChunks, SeriesInput, SeriesSamples, StoreStats,
} from './types.js';
import { encodeWriteRequest } from './write-request.js';

/** Data directories open in this process: DATA/lock tells processes apart, not two stores of one process. */
const openDirs = new Set<string>();

let construct: (parts: Parts) => Strata;

/**
 * One open store: a data directory with its write-ahead log, head and
 * blocks, and the listeners asked for. Calls may overlap; every call
 * after close() fails with ClosedError.
 *
 * @example
 * import { Strata } from 'strata-tsdb';
 *
 * const store = await Strata.open({ dataDir: './data', retention: '30d' });
 * await store.append({ labels: { __name__: 'up', job: 'api' }, timestamps: [Date.now()], values: [1] });
 * for await (const s of store.select('up{job="api"}')) console.log(s.labels, s.timestamps, s.values);
 * await store.close();
 */
export class Strata {
  readonly #parts: Parts;
  #closed = false;
  #closing: Promise<void> | undefined;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #reads = new Set<SeriesSet>();
  #source: StoreSource | undefined;
  #listenQueue: Promise<unknown> = Promise.resolve();

  private constructor(parts: Parts) {
    this.#parts = parts;
  }

  static {
    construct = (parts) => new Strata(parts);
  }

  /**
   * Opens the store on `options.dataDir` (created if missing): replays
   * the write-ahead log, applies retention, starts background compaction
   * and, when asked, listens on `grpcAddress` and `httpAddress`.
   *
   * @throws InvalidArgumentError for an option that is wrong (named)
   * @throws DataDirInUseError when another process, or another Strata of
   *   this one, has the data directory open
   * @throws ListenError when an address cannot be listened on
   * @example
   * const store = await Strata.open({ dataDir: '/var/lib/strata', httpAddress: '127.0.0.1:8080' });
   */
  static open(options: StrataOptions): Promise<Strata> {
    return openStrata(options);
  }

  /**
   * The data directory, absolute.
   *
   * @example
   * console.log(`data in ${store.dataDir}`);
   */
  get dataDir(): string {
    return this.#parts.config.dataDir;
  }

  /**
   * The listeners running, with the ports they bound.
   *
   * @example
   * const store = await Strata.open({ dataDir, grpcAddress: '127.0.0.1:0' });
   * console.log(store.listening.grpc?.port);
   */
  get listening(): Listening {
    const out: Listening = {};
    const { grpc, http, remoteWrite } = this.#parts;
    if (grpc !== undefined) out.grpc = bound(grpc.host, grpc.server.port);
    if (http !== undefined) out.http = bound(http.host, http.server.port);
    if (remoteWrite !== undefined) out.remoteWrite = bound(remoteWrite.host, remoteWrite.server.port);
    return out;
  }

  /**
   * Whether close() was called.
   *
   * @example
   * if (!store.closed) await store.close();
   */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * What the store holds now.
   *
   * @throws ClosedError after close()
   * @example
   * console.log(`${store.stats().headSeries} series in the head`);
   */
  stats(): StoreStats {
    this.#assertOpen();
    const db = this.#parts.db;
    const min = db.minTime;
    const max = db.maxTime;
    return {
      headSeries: db.seriesCount,
      blocks: db.blockCount,
      minTime: Number.isFinite(min) ? min : undefined,
      maxTime: Number.isFinite(max) ? max : undefined,
    };
  }

  /**
   * Appends samples: one series or many, float samples and native
   * histograms, as remote write would carry them, through the same path
   * (validated and parsed in the worker pool, the tenant label added, the
   * write limits, then the write-ahead log and the head). Resolves once
   * the samples are in the write-ahead log in the OS (they survive the
   * process being killed; fsynced every walFsyncInterval, and on
   * close()). Every valid sample is stored even when others are refused;
   * the error says how many were (`written`: float samples and
   * histograms).
   *
   * @throws InvalidArgumentError for an invalid label set (no labels, an
   *   empty name or value, a repeated name), timestamps that are not whole
   *   milliseconds, timestamps and values of different lengths, a
   *   histogram of the wrong shape (nothing stored), or one Prometheus
   *   refuses (the rest stored; the message names its series and why)
   * @throws SamplesRejectedError for samples or histograms out of order,
   *   conflicting, too old or too far in the future
   * @throws LimitError / UnavailableError when the write limits refuse it
   * @throws ClosedError after close()
   * @example
   * await store.append([
   *   { labels: { __name__: 'up', job: 'api' }, timestamps: [1000, 2000], values: [1, 1] },
   *   { labels: [['__name__', 'up'], ['job', 'db']], timestamps: Float64Array.of(1000), values: Float64Array.of(0) },
   * ], { tenant: 'team-a' });
   * const { histograms } = await store.append({
   *   labels: { __name__: 'rpc_seconds', job: 'api' },
   *   histograms: [{ timestamp: 1000, float: false, histogram: {
   *     counterResetHint: 0, schema: 0, zeroThreshold: 1e-128, zeroCount: 0, count: 2, sum: 3,
   *     positiveSpans: [{ offset: 1, length: 1 }], positiveBuckets: [2], negativeSpans: [], negativeBuckets: [],
   *   } }],
   * });
   */
  append(series: SeriesInput | Iterable<SeriesInput>, options: AppendOptions = {}): Promise<AppendResult> {
    return this.#track(async () => {
      const tenant = options.tenant;
      if (tenant !== undefined && typeof tenant !== 'string') throw new InvalidArgumentError('tenant: expected a string');
      const bytes = encodeWriteRequest(series);
      const outcome = await this.#parts.writer.write(bytes, { dialect: 'prometheus', tenant: tenant || this.#parts.config.receiveDefaultTenantId });
      if (outcome.error !== undefined) {
        const err = publicError(outcome.error);
        err.written = outcome.samples + outcome.histograms;
        throw err;
      }
      return { samples: outcome.samples, histograms: outcome.histograms };
    });
  }

  /**
   * The series `selector` selects with data in the range, sorted by
   * labels, one at a time: with their samples in the range (default), or
   * with their chunks as stored (`chunks: true`: raw Prometheus chunk
   * bytes, which may reach past the range). Labels are those the Store API
   * answers: the tenant label and the external labels included. The
   * read sees the store as it was at the first next(); break out of the
   * loop (or call return()) to end it early: until it ends it holds data
   * the head would otherwise let go of. Errors come from next(), typed as
   * the other calls' (a bad selector: InvalidArgumentError; over
   * storeLimitsRequestSeries or -Samples: LimitError; the store closed
   * meanwhile: ClosedError).
   *
   * @example
   * for await (const { labels, timestamps, values } of store.select('http_requests_total{code=~"5.."}', { minTime: Date.now() - 3_600_000 })) {
   *   console.log(labels.instance, values.length);
   * }
   * for await (const s of store.select([{ name: 'job', value: 'api' }], { chunks: true })) console.log(s.chunks[0]?.encoding);
   */
  select(selector: Selector | undefined, options: SelectOptions & { chunks: true }): AsyncIterableIterator<SeriesChunks>;
  select(selector?: Selector, options?: SelectOptions & { chunks?: false }): AsyncIterableIterator<SeriesSamples>;
  select(selector?: Selector, options?: SelectOptions): AsyncIterableIterator<SeriesSamples | SeriesChunks>;
  select(selector?: Selector, options: SelectOptions = {}): AsyncIterableIterator<SeriesSamples | SeriesChunks> {
    return this.#select(selector, options);
  }

  async *#select(selector: Selector | undefined, options: SelectOptions): AsyncGenerator<SeriesSamples | SeriesChunks, void, undefined> {
    try {
      this.#assertOpen();
      const range = this.#range(selector, options);
      const query = { ...range, skipChunks: false, shard: undefined };
      yield* readSeries(this.#store(), query, options.chunks === true, this.#openReads());
    } catch (err) {
      throw publicError(err);
    }
  }

  /**
   * Label names of the series `options.selector` selects (default: all)
   * with data in the range, sorted (UTF-8 byte order); the external labels'
   * names included.
   *
   * @example
   * const names = await store.labelNames({ selector: 'up', minTime: Date.now() - 86_400_000 });
   */
  labelNames(options: LabelOptions = {}): Promise<string[]> {
    return this.#track(async () => [...await this.#store().labelNames(this.#range(options.selector, options))]);
  }

  /**
   * Values of label `name` among the series `options.selector` selects
   * (default: all) with data in the range, sorted (UTF-8 byte order).
   *
   * @throws InvalidArgumentError for an empty name or a bad selector
   * @example
   * const jobs = await store.labelValues('job', { selector: '{__name__="up"}' });
   */
  labelValues(name: string, options: LabelOptions = {}): Promise<string[]> {
    return this.#track(async () => {
      if (typeof name !== 'string' || name === '') throw new InvalidArgumentError('label name parameter cannot be empty');
      return [...await this.#store().labelValues({ ...this.#range(options.selector, options), name })];
    });
  }

  /**
   * Starts listeners not started yet: the Store API over gRPC on
   * `grpcAddress`, HTTP (remote write and read, the Prometheus label API,
   * probes, /metrics, the JSON resources) on `httpAddress`. Resolves with
   * every listener running.
   *
   * @throws InvalidArgumentError for a bad address, or one of a listener already running
   * @throws ListenError when the address cannot be listened on
   * @example
   * const { grpc, http } = await store.listen({ grpcAddress: '127.0.0.1:10901', httpAddress: '127.0.0.1:8080' });
   */
  listen(options: ListenOptions): Promise<Listening> {
    const run = this.#listenQueue.then(() => this.#track(() => this.#listen(options)));
    this.#listenQueue = run.catch(() => undefined);
    return run;
  }

  async #listen(options: ListenOptions): Promise<Listening> {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('listen: expected { grpcAddress?, httpAddress? }');
    for (const key of Object.keys(options)) {
      if (key !== 'grpcAddress' && key !== 'httpAddress') throw new InvalidArgumentError(`listen: unknown option '${key}'`);
    }
    const parts = this.#parts;
    const grpcAt = options.grpcAddress === undefined ? undefined : hostPort('grpcAddress', options.grpcAddress);
    const httpAt = options.httpAddress === undefined ? undefined : hostPort('httpAddress', options.httpAddress);
    if (grpcAt !== undefined && parts.grpc !== undefined) throw new InvalidArgumentError(`grpcAddress: gRPC listens already, on ${this.listening.grpc!.address}`);
    if (httpAt !== undefined && parts.http !== undefined) throw new InvalidArgumentError(`httpAddress: HTTP listens already, on ${this.listening.http!.address}`);
    await listenOn(parts, grpcAt, httpAt, publicError);
    return this.listening;
  }

  /**
   * fsyncs the write-ahead log now (it is fsynced every walFsyncInterval
   * anyway, and on close()).
   *
   * @example
   * await store.append(series);
   * await store.sync();   // on disk, not only in the OS
   */
  sync(): Promise<void> {
    return this.#track(() => this.#parts.db.sync());
  }

  /**
   * Closes the store gracefully, as `strata serve` stops on SIGTERM: no
   * new calls; the listeners stop taking requests and let those in flight
   * finish; appends in flight finish; selections still being read end
   * with ClosedError; the head is flushed (open chunks to disk, WAL
   * checkpointed), files are fsynced and closed, the worker pool stops.
   * Calling it again returns the same promise.
   *
   * @example
   * process.once('SIGTERM', () => void store.close());
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    for (const set of this.#reads) set.close();
    await Promise.allSettled([...this.#inFlight]);
    try {
      await stopParts(this.#parts);
    } catch (err) {
      throw publicError(err);
    } finally {
      openDirs.delete(this.dataDir);
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new ClosedError();
  }

  /** Runs a call: refused once closed, waited for by close(), its errors typed. */
  #track<T>(call: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new ClosedError());
    const run = (async () => {
      try {
        return await call();
      } catch (err) {
        throw publicError(err);
      }
    })();
    this.#inFlight.add(run);
    void run.finally(() => this.#inFlight.delete(run)).catch(() => undefined);
    return run;
  }

  #openReads(): OpenReads {
    const reads = this.#reads;
    return {
      closed: () => this.#closed,
      add(set) {
        reads.add(set);
        return () => reads.delete(set);
      },
    };
  }

  /** The engine as the Store API reads it: external labels, limits (src/store/store-stack.ts). */
  #store(): StoreSource {
    if (this.#source === undefined) {
      const { config, db } = this.#parts;
      this.#source = decorateSource(new EngineSource(db, config.tenantLabelName), {
        externalLabels: new ExternalLabels(config.externalLabels),
        replicaLabels: new Set(config.replicaLabels),
        tenantLabel: config.tenantLabelName,
        seriesLimit: config.limitRequestSeries,
        samplesLimit: config.limitRequestSamples,
      }, instantiateHeadWasm(), 'engine source');
    }
    return this.#source;
  }

  /** A read's matchers, range and limit, checked. */
  #range(selector: Selector | undefined, options: RangeOptions): LabelNamesQuery {
    const matchers: LabelMatcher[] = toMatchers(selector);
    if (options.tenant !== undefined) {
      if (typeof options.tenant !== 'string') throw new InvalidArgumentError('tenant: expected a string');
      matchers.push({ type: MatchType.EQ, name: this.#parts.config.tenantLabelName, value: options.tenant });
    }
    return {
      matchers,
      minT: toMs('minTime', options.minTime, -Infinity),
      maxT: toMs('maxTime', options.maxTime, Infinity),
      withoutReplicaLabels: [],
      limit: toLimit(options.limit),
    };
  }
}

function bound(host: string, port: number): BoundAddress {
  return { host, port, address: `${host.includes(':') ? `[${host}]` : host}:${port}` };
}

/**
 * What `strata serve` adds to Strata.open: its test hooks (see
 * StartHooks), and its own error reporting. Declared here, not derived
 * from StartHooks, so that this file's declarations name no internal type.
 */
export interface ServeHooks {
  openDelayMs?: number;
  beforeMeta?: () => void;
  /** Throw errors as the engine and the listeners do (the CLI maps them to exit statuses), not the library's typed errors. */
  rawErrors?: boolean;
}

/** Strata.open, with `hooks` (for `strata serve`; not exported from the package). */
export async function openStrata(options: StrataOptions, hooks: ServeHooks = {}): Promise<Strata> {
  const { rawErrors = false, ...start } = hooks;
  let config: ResolvedOptions;
  try {
    config = resolveOptions(options);
  } catch (err) {
    throw rawErrors ? err : publicError(err);
  }
  if (openDirs.has(config.dataDir)) throw new DataDirInUseError(`data directory ${config.dataDir} is open already in this process`);
  openDirs.add(config.dataDir);
  try {
    return construct(await startParts(config, rawErrors ? start : { ...start, failed: publicError }));
  } catch (err) {
    openDirs.delete(config.dataDir);
    throw err;
  }
}
