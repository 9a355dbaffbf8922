import type { LabelMatcher } from '../index/index.js';
import { TransientArena } from '../query/byte-arena.js';
import type { StoredChunk } from '../query/types.js';
import { StoreType } from '../gen/thanos/store/rpc.js';
import type {
  InfoResponse, LabelNamesRequest, LabelNamesResponse, LabelValuesRequest, LabelValuesResponse, SeriesRequest,
} from '../gen/thanos/store/rpc.js';
import type { ExemplarsInfo, InfoResponse as InfoServiceResponse } from '../gen/thanos/info/rpc.js';
import type { LabelMatcher as WireMatcher } from '../gen/thanos/store/types.js';
import type { Label, ZLabelSet } from '../gen/thanos/store/labels.js';
import { invalidArgument } from '../errors/errors.js';
import { encodeSeriesFrames, encodeWarningFrame } from './series-frames.js';
import type { SeriesSink } from './series-sink.js';
import type { LabelNamesQuery, SeriesQuery, SourceInfo, StoreSource } from './store-source.js';

/** What Info says the store is: Thanos' component types. */
export type StoreComponent = 'receive' | 'sidecar' | 'store';

/**
 * The APIs beside the Store API that the component serves (on the same
 * gRPC server), for Info to advertise: Thanos Query calls thanos.Exemplars
 * and thanos.Metadata only where Info sets `exemplars` and `metric_metadata`.
 */
export interface OtherApis {
  /**
   * thanos.Exemplars is served; Info's `exemplars` are the times of the
   * oldest and newest exemplar held (undefined while none is: min > max,
   * where Thanos Receive answers zeros and Thanos Query reads neither).
   */
  exemplars?: () => { min: number; max: number } | undefined;
  /** thanos.Metadata is served. */
  metricMetadata?: boolean;
}

const STORE_TYPES: Record<StoreComponent, StoreType> = { receive: StoreType.RECEIVE, sidecar: StoreType.SIDECAR, store: StoreType.STORE };

const MAX_I64 = 9223372036854775807n;
const MIN_I64 = -9223372036854775808n;
/**
 * Series encoded per turn of the event loop while streaming a large
 * answer: other calls get the thread between slices.
 */
const SERIES_PER_SLICE = 1024;
const NO_CHUNKS: readonly StoredChunk[] = [];

/**
 * The Store API over a (decorated) source, independent of the transport:
 * requests as decoded messages, Series frames as encoded bytes into a
 * sink. It decodes requests into queries (matcher types, int64 times),
 * validates what the source cannot (an empty label name), encodes series
 * as frames (README; issue 4: whole series, sorted, labels sorted, chunks
 * by min time, frames of about 1 MiB) and answers Info. Everything the
 * answer's labels and selection depend on is the decorators' (store-stack.ts).
 */
export class StoreApi {
  constructor(private readonly source: StoreSource, private readonly component: StoreComponent = 'receive', private readonly others: OtherApis = {}) {}

  /**
   * Answers a Series request into `sink`, pausing while it is blocked (flow
   * control). Request errors (invalid argument, limits) are thrown before
   * the first frame. The source's set is closed however the call ends.
   */
  async series(req: SeriesRequest, sink: SeriesSink): Promise<void> {
    const warnings = new Set<string>();
    const query: SeriesQuery = {
      matchers: toMatchers(req.matchers),
      minT: toMs(req.minTime),
      maxT: toMs(req.maxTime),
      // `aggregates` and `max_resolution_window` choose among downsampled
      // chunks; these sources hold raw data only, which Thanos' own raw
      // stores (tsdb.go, prometheus.go) answer as it is, without a warning.
      skipChunks: req.skipChunks,
      withoutReplicaLabels: req.withoutReplicaLabels,
      shard: req.shardInfo,
      limit: toLimit(req.limit),
      warn: (w) => warnings.add(w),
    };
    const set = this.source.series(query);
    const send = (frame: Buffer): void => sink.send(frame);
    const alloc = (size: number): Buffer => sink.alloc(size);
    const skip = query.skipChunks;
    let ok = false;
    try {
      // Open chunks are not copied: each series' chunks go into its frame
      // before anything else runs (see TransientArena), so views do.
      const arena = new TransientArena();
      let n = 0;
      for (let batch = await set.next(); batch !== undefined; batch = await set.next()) {
        for (let i = 0; i < batch.length; i++) {
          const s = batch[i]!;
          // Chunks are read series by series as the answer streams, so the
          // first frames leave while later ones are not read yet.
          const chunks = skip ? NO_CHUNKS : set.chunks(s, arena);
          if (chunks.length > 0 || skip) encodeSeriesFrames(s.labels, chunks, send, alloc);
          if (sink.blocked) {
            await sink.drained();
          } else if (++n % SERIES_PER_SLICE === 0) {
            sink.flush();
            await new Promise((r) => setImmediate(r));
          }
        }
      }
      // Warnings go after the series, as Thanos' proxy sends them once known.
      for (const w of warnings) send(encodeWarningFrame(w, alloc));
      sink.flush();
      ok = true;
    } finally {
      // A failure to let go after a complete answer fails the call; after
      // a failed one, the first error is the one to report.
      try {
        set.close();
      } catch (err) {
        if (ok) throw err;
      }
    }
  }

  async labelNames(req: LabelNamesRequest): Promise<LabelNamesResponse> {
    const warnings = new Set<string>();
    const names = await this.source.labelNames(labelsQuery(req, warnings));
    // The encoder only reads the list: no copy of what may be 100k names.
    return { names: names as string[], warnings: [...warnings] };
  }

  async labelValues(req: LabelValuesRequest): Promise<LabelValuesResponse> {
    if (req.label === '') throw invalidArgument('label name parameter cannot be empty');
    const warnings = new Set<string>();
    const values = await this.source.labelValues({ ...labelsQuery(req, warnings), name: req.label });
    return { values: values as string[], warnings: [...warnings] };
  }

  /** thanos.Store/Info (deprecated). */
  async info(): Promise<InfoResponse> {
    const info = await this.source.info();
    const [minTime, maxTime] = timeRange(info);
    return {
      labels: toLabels(info.labels),
      minTime,
      maxTime,
      storeType: STORE_TYPES[this.component],
      labelSets: toLabelSets(info),
    };
  }

  /** thanos.info.Info/Info. */
  async infoService(): Promise<InfoServiceResponse> {
    const info = await this.source.info();
    const [minTime, maxTime] = timeRange(info);
    return {
      labelSets: toLabelSets(info),
      ComponentType: this.component,
      // Sharding and without_replica_labels are the decorators' (store-stack.ts), whatever the source.
      store: { minTime, maxTime, supportsSharding: true, supportsWithoutReplicaLabels: true, tsdbInfos: [] },
      ...(this.others.exemplars === undefined ? {} : { exemplars: exemplarsInfo(this.others.exemplars()) }),
      ...(this.others.metricMetadata === true ? { metricMetadata: {} } : {}),
    };
  }
}

function labelsQuery(req: LabelNamesRequest, warnings: Set<string>): LabelNamesQuery {
  return {
    matchers: toMatchers(req.matchers),
    minT: toMs(req.start),
    maxT: toMs(req.end),
    withoutReplicaLabels: req.withoutReplicaLabels,
    limit: toLimit(req.limit),
    warn: (w) => warnings.add(w),
  };
}

function toMatchers(ms: readonly WireMatcher[]): LabelMatcher[] {
  return ms.map((m) => {
    if (m.type < 0 || m.type > 3) throw invalidArgument(`matcher on ${JSON.stringify(m.name)}: unknown type ${m.type}`);
    return { type: m.type as LabelMatcher['type'], name: m.name, value: m.value };
  });
}

/** Store API times (int64 ms) as numbers; beyond ±2^53 they are as good as infinite. */
function toMs(t: bigint): number {
  if (t >= 9007199254740991n) return Infinity;
  if (t <= -9007199254740991n) return -Infinity;
  return Number(t);
}

/** A request's int64 limit; 0 or less means none. */
function toLimit(limit: bigint): number {
  return limit > 0n ? Number(limit) : 0;
}

/** The data's time range; an empty store says so with min > max. */
function timeRange(info: SourceInfo): [bigint, bigint] {
  if (info.maxT === -Infinity) return [MAX_I64, MIN_I64];
  // A sidecar's data reaches into the future (Prometheus keeps writing): MaxInt64, as Thanos' sidecar.
  return [info.minT === -Infinity ? MIN_I64 : BigInt(info.minT), info.maxT === Infinity ? MAX_I64 : BigInt(info.maxT)];
}

function exemplarsInfo(range: { min: number; max: number } | undefined): ExemplarsInfo {
  if (range === undefined) return { minTime: MAX_I64, maxTime: MIN_I64 };
  return { minTime: BigInt(range.min), maxTime: BigInt(range.max) };
}

function toLabels(flat: readonly string[]): Label[] {
  const out: Label[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ name: flat[i]!, value: flat[i + 1]! });
  return out;
}

function toLabelSets(info: SourceInfo): ZLabelSet[] {
  return info.labelSets.map((set) => ({ labels: toLabels(set) }));
}
