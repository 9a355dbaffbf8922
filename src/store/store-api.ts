import type { Db } from '../db/db.js';
import type { PlannedSeries, SelectedSeries } from '../query/types.js';
import type { Querier } from '../query/querier.js';
import type { HeadWasm } from '../head/head-wasm.js';
import { compareLabels, compareLabelsNative } from '../index/utf8-order.js';
import { compareUtf8, type LabelMatcher } from '../index/index.js';
import { StoreType } from '../gen/thanos/store/rpc.js';
import type {
  InfoResponse, LabelNamesRequest, LabelNamesResponse, LabelValuesRequest, LabelValuesResponse, SeriesRequest,
} from '../gen/thanos/store/rpc.js';
import type { InfoResponse as InfoServiceResponse } from '../gen/thanos/info/rpc.js';
import type { LabelMatcher as WireMatcher } from '../gen/thanos/store/types.js';
import type { Label, ZLabelSet } from '../gen/thanos/store/labels.js';
import { ExternalLabels, withoutLabels } from './external-labels.js';
import { invalidArgument, limitExceeded } from './errors.js';
import { encodeSeriesFrames } from './series-frames.js';
import { ShardFilter } from './shard.js';
import type { SeriesSink } from './series-sink.js';
import { ByteArena } from '../query/byte-arena.js';

/** A series to answer: its labels as answered, and its chunks, or the planned series to read them from. */
interface Planned {
  labels: readonly string[];
  chunks: SelectedSeries['chunks'];
  series?: PlannedSeries;
}

export interface StoreApiConfig {
  externalLabels: ExternalLabels;
  /** --replica-label: when not empty, the only labels without_replica_labels may remove. */
  replicaLabels: ReadonlySet<string>;
  /** --tenant-label-name. */
  tenantLabel: string;
  /** --store.limits.request-series / -samples; 0 = none. */
  seriesLimit: number;
  samplesLimit: number;
}

const MAX_I64 = 9223372036854775807n;
const MIN_I64 = -9223372036854775808n;
/** Series encoded per turn of the event loop while streaming a large answer. */
const SERIES_PER_SLICE = 1024;

/**
 * The Store API over the engine, independent of the transport: requests
 * as decoded messages, Series frames as encoded bytes. Rules: see the
 * README and issue 4 (series whole and sorted, labels sorted, chunks by
 * min time, frames of about 1 MiB, external labels winning, replica labels,
 * sharding, limits, warnings as frames).
 */
export class StoreApi {
  constructor(private readonly db: Db, private readonly cfg: StoreApiConfig, private readonly wasm: HeadWasm) {}

  /**
   * Answers a Series request into `sink`, pausing when it is blocked (flow
   * control). Throws StoreRequestError (invalid argument, limits) before
   * the first frame.
   */
  async series(req: SeriesRequest, sink: SeriesSink): Promise<void> {
    const { matches, rest } = this.cfg.externalLabels.decide(toMatchers(req.matchers));
    // Matchers on external labels are decided first: no match, empty answer.
    if (!matches) return;
    if (rest.length === 0) throw invalidArgument('no matchers specified (excluding external labels)');
    // `aggregates` and `max_resolution_window` choose among downsampled
    // chunks; this store holds raw data only, which Thanos' own raw stores
    // (tsdb.go, prometheus.go) answer as it is, without a warning.
    const send = (frame: Buffer): void => sink.send(frame);
    const alloc = (size: number): Buffer => sink.alloc(size);
    // The answer streams over many turns of the event loop: the head keeps
    // the data of blocks written meanwhile until it is done.
    const release = this.db.holdRead();
    try {
      const querier = this.db.querier();
      // With limits to check every chunk is read first; otherwise chunks are
      // read slice by slice as the answer streams, so the first frames leave
      // while later ones are still being read.
      const eager = this.cfg.seriesLimit > 0 || this.cfg.samplesLimit > 0 || req.skipChunks;
      const planned: Planned[] = eager ? this.select(querier, req, rest) : this.plan(querier, req, rest);
      const minT = toMs(req.minTime);
      const maxT = toMs(req.maxTime);
      let arena = new ByteArena();
      for (let i = 0; i < planned.length; i++) {
        const p = planned[i]!;
        const chunks = p.series === undefined ? p.chunks : querier.chunksOf(p.series, minT, maxT, arena);
        if (chunks.length > 0 || req.skipChunks) encodeSeriesFrames(p.labels, chunks, send, alloc);
        if (sink.blocked) {
          await sink.drained();
        } else if (i % SERIES_PER_SLICE === SERIES_PER_SLICE - 1) {
          sink.flush();
          await new Promise((r) => setImmediate(r));
          arena = new ByteArena();
        }
      }
      sink.flush();
    } finally {
      release();
    }
  }

  /**
   * The series to answer, labels as answered (external labels in, replica
   * labels out), in shard, sorted, cut at the request's limit; their chunks
   * are not read yet.
   */
  private plan(querier: Querier, req: SeriesRequest, matchers: LabelMatcher[]): Planned[] {
    const shard = ShardFilter.of(this.wasm, req.shardInfo);
    const drop = this.replicaLabelsToDrop(req.withoutReplicaLabels);
    const ext = this.cfg.externalLabels;
    let out: Planned[] = [];
    for (const s of querier.plan(matchers, toMs(req.minTime), toMs(req.maxTime))) {
      // One label list per series: the frame is encoded from exactly what
      // the shard decision hashed (tenant and external labels in, replica
      // labels out), so replicas land in one shard and deduplicate.
      const labels = withoutLabels(ext.apply(s.labels), drop);
      if (shard !== undefined && !shard.keeps(labels)) continue;
      out.push({ labels, chunks: [], series: s });
    }
    shard?.close();
    if (ext.size > 0 || drop.size > 0) {
      const compare = querier.hasSurrogates() || ext.hasSurrogates ? compareLabels : compareLabelsNative;
      out.sort((a, b) => compare(a.labels, b.labels));
    }
    const limit = Number(req.limit);
    if (limit > 0 && out.length > limit) out = out.slice(0, limit);
    return out;
  }

  /**
   * The series to answer with their chunks read, limits checked. Series
   * with no chunk in the range are left out.
   */
  private select(querier: Querier, req: SeriesRequest, matchers: LabelMatcher[]): SelectedSeries[] {
    const minT = toMs(req.minTime);
    const maxT = toMs(req.maxTime);
    const arena = new ByteArena();
    const out: SelectedSeries[] = [];
    for (const p of this.plan(querier, req, matchers)) {
      const chunks = req.skipChunks ? [] : querier.chunksOf(p.series!, minT, maxT, arena);
      if (chunks.length > 0 || req.skipChunks) out.push({ labels: p.labels, chunks });
    }
    this.checkLimits(out);
    return out;
  }

  private checkLimits(series: readonly SelectedSeries[]): void {
    const { seriesLimit, samplesLimit } = this.cfg;
    if (seriesLimit > 0 && series.length > seriesLimit) {
      throw limitExceeded(`exceeded series limit: the request selects ${series.length} series, more than the limit of ${seriesLimit} (--store.limits.request-series)`);
    }
    if (samplesLimit > 0) {
      let samples = 0;
      for (const s of series) for (const c of s.chunks) samples += (c.data[0]! << 8) | c.data[1]!;
      if (samples > samplesLimit) {
        throw limitExceeded(`exceeded samples limit: the request selects ${samples} samples, more than the limit of ${samplesLimit} (--store.limits.request-samples)`);
      }
    }
  }

  labelNames(req: LabelNamesRequest): LabelNamesResponse {
    const { matches, rest } = this.cfg.externalLabels.decide(toMatchers(req.matchers));
    if (!matches) return { names: [], warnings: [] };
    const names = new Set(this.db.querier().labelNames(rest, toMs(req.start), toMs(req.end)));
    // Names come only with data: no data in the range, no names at all.
    if (names.size === 0) return { names: [], warnings: [] };
    // As Thanos' TSDB store: external labels named in without_replica_labels
    // are left out, stored names stay. The tenant label counts as external
    // (Thanos Receive keeps it in each tenant's external labels).
    const drop = this.replicaLabelsToDrop(req.withoutReplicaLabels);
    for (const [name] of this.cfg.externalLabels.pairs) if (!drop.has(name)) names.add(name);
    if (drop.has(this.cfg.tenantLabel)) names.delete(this.cfg.tenantLabel);
    return { names: limited([...names].sort(compareUtf8), req.limit), warnings: [] };
  }

  labelValues(req: LabelValuesRequest): LabelValuesResponse {
    if (req.label === '') throw invalidArgument('label name parameter cannot be empty');
    // A label the answer removes has no values (Thanos' TSDB store).
    if (this.replicaLabelsToDrop(req.withoutReplicaLabels).has(req.label)) return { values: [], warnings: [] };
    const { matches, rest } = this.cfg.externalLabels.decide(toMatchers(req.matchers));
    if (!matches) return { values: [], warnings: [] };
    const start = toMs(req.start);
    const end = toMs(req.end);
    const ext = this.cfg.externalLabels.value(req.label);
    if (ext !== undefined) {
      // Without matchers (other than on external labels) the store's own
      // value answers, data or not; with them, only when a series matches.
      const some = rest.length === 0 || this.db.querier().select(rest, start, end, { skipChunks: true }).length > 0;
      return { values: some ? [ext] : [], warnings: [] };
    }
    return { values: limited(this.db.querier().labelValues(req.label, rest, start, end), req.limit), warnings: [] };
  }

  /** thanos.Store/Info (deprecated). */
  info(): InfoResponse {
    const [minTime, maxTime] = this.timeRange();
    return {
      labels: this.externalLabelList(),
      minTime,
      maxTime,
      storeType: StoreType.RECEIVE,
      labelSets: this.labelSets(),
    };
  }

  /** thanos.info.Info/Info. */
  infoService(): InfoServiceResponse {
    const [minTime, maxTime] = this.timeRange();
    return {
      labelSets: this.labelSets(),
      ComponentType: 'receive',
      store: { minTime, maxTime, supportsSharding: true, supportsWithoutReplicaLabels: true, tsdbInfos: [] },
    };
  }

  /** One label set per tenant: the external labels plus the tenant label. */
  private labelSets(): ZLabelSet[] {
    const tenants = this.db.querier().labelValues(this.cfg.tenantLabel, [], -Infinity, Infinity);
    if (tenants.length === 0) return this.cfg.externalLabels.size > 0 ? [{ labels: this.externalLabelList() }] : [];
    return tenants.map((t) => ({
      labels: this.cfg.externalLabels.apply([this.cfg.tenantLabel, t]).reduce<Label[]>((acc, v, i, all) => {
        if (i % 2 === 0) acc.push({ name: v, value: all[i + 1]! });
        return acc;
      }, []),
    }));
  }

  private externalLabelList(): Label[] {
    return this.cfg.externalLabels.pairs.map(([name, value]) => ({ name, value }));
  }

  /** The data's time range; an empty store says so with min > max. */
  private timeRange(): [bigint, bigint] {
    if (this.db.maxTime === -Infinity) return [MAX_I64, MIN_I64];
    return [BigInt(this.db.minTime), BigInt(this.db.maxTime)];
  }

  /**
   * The labels a request's without_replica_labels removes: all it names, as
   * Thanos Receive does; with --replica-label, only those among them.
   */
  private replicaLabelsToDrop(named: readonly string[]): Set<string> {
    const only = this.cfg.replicaLabels;
    const drop = new Set<string>();
    for (const n of named) if (only.size === 0 || only.has(n)) drop.add(n);
    return drop;
  }
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

function limited<T>(xs: T[], limit: bigint): T[] {
  const n = Number(limit);
  return n > 0 && xs.length > n ? xs.slice(0, n) : xs;
}
