import { threadCodec } from '../chunkenc/index.js';
import { decodeHistogramChunk, encodeHistogramChunks } from '../chunkenc/chunk-samples.js';
import { ENCODING_XOR } from '../chunkenc/encoding.js';
import type { LabelMatcher } from '../index/types.js';
import { compareLabels } from '../encoding/utf8.js';
import { matchesValue } from '../index/label-matcher.js';
import { compareUtf8 } from '../index/index.js';
import type { ByteArena } from '../query/byte-arena.js';
import { Querier } from '../query/querier.js';
import type { BlockSeriesReader } from '../query/block-series.js';
import type { PlannedSeries, StoredChunk } from '../query/types.js';
import type {
  LabelNamesQuery, LabelValuesQuery, SeriesQuery, SeriesSet, SourceInfo, SourceSeries, StoreSource,
} from '../store/store-source.js';
import type { PrometheusBlocks } from './prometheus-blocks.js';
import { prometheusLabelNames, prometheusLabelValues } from './prometheus-client.js';
import { remoteRead, type RemoteReadAnswer, type StreamedSeries } from './remote-read-client.js';

/** What the sidecar source needs of the sidecar around it. */
export interface SidecarSourceOptions {
  /** Prometheus' base URL. */
  prometheusUrl: string;
  blocks: PrometheusBlocks;
  /** Prometheus' external labels as last read: its remote read adds them, the source answers labels as stored. */
  externalLabels: () => ReadonlyArray<readonly [string, string]>;
  /** Prometheus' oldest sample (prometheus_tsdb_lowest_timestamp_seconds, ms) as last read; undefined when never read. */
  lowestTimestamp: () => number | undefined;
  /** Longest wait for one remote read or label call to Prometheus. */
  timeoutMs?: number;
}

/**
 * A Prometheus beside the sidecar as a Store API source (Thanos'
 * PrometheusStore, better where it can be): the blocks of its data
 * directory are read directly (memory-mapped, as Strata's own), and only
 * what comes after the newest of them (its head) through its remote read,
 * as STREAMED_XOR_CHUNKS passed on as they come. The two are merged by
 * labels at the boundary `end` (exclusive end of the blocks read directly):
 * the blocks answer [minT, end), remote read [end, maxT]; a chunk of remote
 * read that reaches below `end` (its head not truncated yet) is cut there,
 * so no sample is answered twice.
 *
 * Blocks another block replaces (a compaction's parents, until Prometheus
 * deletes them) are left out; a block with tombstones is not read directly
 * (the deleted samples are in its files): its range and everything after it
 * come through remote read, which applies them.
 *
 * When Prometheus does not answer, the blocks still do, with a warning
 * saying what is missing.
 */
export class SidecarSource implements StoreSource {
  constructor(private readonly opts: SidecarSourceOptions) {}

  series(query: SeriesQuery): SeriesSet {
    const { readers, end } = this.direct();
    const querier = new Querier(readers);
    const planned = querier.plan(query.matchers, query.minT, Math.min(query.maxT, end - 1));
    const from = Math.max(query.minT, end);
    const remote = from <= query.maxT ? { from, end } : undefined;
    return new SidecarSeriesSet(this.opts, querier, planned, query, end, remote);
  }

  async labelNames(query: LabelNamesQuery): Promise<readonly string[]> {
    return this.labels(query, (q, from, to) => q.labelNames(query.matchers, from, to), (from, to) => prometheusLabelNames(this.opts.prometheusUrl, query.matchers, from, to, this.timeout),
      (series) => series.flatMap((s) => s.labels.filter((_, i) => i % 2 === 0)));
  }

  async labelValues(query: LabelValuesQuery): Promise<readonly string[]> {
    const name = query.name;
    return this.labels(query, (q, from, to) => q.labelValues(name, query.matchers, from, to), (from, to) => prometheusLabelValues(this.opts.prometheusUrl, name, query.matchers, from, to, this.timeout),
      (series) => series.flatMap((s) => {
        for (let i = 0; i < s.labels.length; i += 2) if (s.labels[i] === name) return [s.labels[i + 1]!];
        return [];
      }));
  }

  info(): Promise<SourceInfo> {
    const { readers } = this.direct();
    let minT = this.opts.lowestTimestamp() ?? Infinity;
    for (const r of this.opts.blocks.readers) if (r.minTime < minT) minT = r.minTime;
    // Until anything is known, everything may be here; Prometheus keeps
    // writing, so the data reaches into the future (Thanos: MaxInt64).
    if (minT === Infinity && readers.length === 0) minT = -Infinity;
    return Promise.resolve({ minT, maxT: Infinity, labels: [], labelSets: [] });
  }

  private get timeout(): number {
    return this.opts.timeoutMs ?? 120_000;
  }

  /** The blocks read directly, oldest first, and where they end (exclusive; -Infinity: none). */
  private direct(): { readers: BlockSeriesReader[]; end: number } {
    const all = this.opts.blocks.readers;
    const replaced = new Set<string>();
    for (const r of all) {
      for (const p of r.block.meta.compaction.parents ?? []) replaced.add(p.ulid);
    }
    const live = all.filter((r) => !replaced.has(r.block.ulid));
    let cut = Infinity;
    for (const r of live) if (r.block.tombstones > 0 && r.minTime < cut) cut = r.minTime;
    const readers = live.filter((r) => r.block.maxTime <= cut);
    let end = -Infinity;
    for (const r of readers) if (r.block.maxTime > end) end = r.block.maxTime;
    return { readers, end };
  }

  /**
   * Names or values: the blocks' for [minT, end), Prometheus' label API for
   * [end, maxT] (remote read where the API cannot take the matchers: every
   * one of them matches the empty string), merged.
   */
  private async labels(
    query: LabelNamesQuery,
    fromBlocks: (q: Querier, from: number, to: number) => readonly string[],
    fromApi: (from: number, to: number) => Promise<string[]>,
    fromSeries: (series: StreamedSeries[]) => string[],
  ): Promise<readonly string[]> {
    const { readers, end } = this.direct();
    const q = new Querier(readers);
    const out = new Set(fromBlocks(q, query.minT, Math.min(query.maxT, end - 1)));
    const from = Math.max(query.minT, end);
    if (from <= query.maxT) {
      try {
        const viaApi = query.matchers.length === 0 || query.matchers.some((m) => !matchesValue(m, ''));
        const got = viaApi ? await fromApi(from, query.maxT) : fromSeries(await this.readAll(query.matchers, from, query.maxT));
        for (const v of got) out.add(v);
      } catch (err) {
        query.warn?.(unreachable(this.opts.prometheusUrl, err, end));
      }
    }
    return [...out].sort(compareUtf8);
  }

  private async readAll(matchers: readonly LabelMatcher[], from: number, to: number): Promise<StreamedSeries[]> {
    const { series } = await remoteRead(this.opts.prometheusUrl, matchers, from, to, { timeoutMs: this.timeout });
    const ext = this.opts.externalLabels();
    return series.map((s) => ({ labels: stripExternal(s.labels, ext), chunks: [] }));
  }
}

/** A series of the merged answer: planned from blocks, from remote read, or both. */
interface MergedSeries extends SourceSeries {
  readonly planned: PlannedSeries | undefined;
  readonly remote: StoredChunk[] | undefined;
}

/**
 * Blocks' planned series joined with remote read's. Remote read answers
 * each series with Prometheus' external labels merged in (its own label of
 * the same name wins), so a stored label equal to an external one cannot
 * be told apart from the merged one: series are joined on their labels
 * with the external labels merged in, the way Prometheus merges them. The
 * answer is collected whole before it is yielded (chunks still as they
 * came, never decoded), in one batch sorted by labels; the external-labels
 * decorator above re-sorts the whole answer anyway, as Thanos' sidecar
 * does (its resortingServer).
 */
class SidecarSeriesSet implements SeriesSet {
  private answer: Promise<RemoteReadAnswer> | undefined;
  private readonly abort = new AbortController();
  private done = false;
  private surrogates: boolean;

  constructor(
    private readonly opts: SidecarSourceOptions,
    private readonly querier: Querier,
    private readonly planned: PlannedSeries[],
    private readonly query: SeriesQuery,
    /** Where the blocks read directly end (exclusive; -Infinity: none). */
    private readonly end: number,
    /** Remote read from `from` (the blocks' end or the query's start, the later) to the query's end; undefined: none. */
    private readonly remote: { from: number } | undefined,
  ) {
    this.surrogates = querier.hasSurrogates();
    if (remote !== undefined) {
      this.answer = remoteRead(opts.prometheusUrl, query.matchers, remote.from, query.maxT, { signal: this.abort.signal });
      // Awaited in next(); a close() before that must not leave it unhandled.
      this.answer.catch(() => {});
    }
  }

  async next(): Promise<readonly SourceSeries[] | undefined> {
    if (this.done) return undefined;
    this.done = true;
    const ext = this.opts.externalLabels();
    let streamed: StreamedSeries[] = [];
    if (this.answer !== undefined) {
      try {
        const answer = await this.answer;
        streamed = answer.series;
        if (answer.surrogates) this.surrogates = true;
      } catch (err) {
        if (this.abort.signal.aborted) throw err;
        this.query.warn?.(unreachable(this.opts.prometheusUrl, err, this.remote!.from));
      } finally {
        this.answer = undefined;
      }
    }
    // Only the head asked (no block series): remote read's answer as it came.
    if (this.planned.length === 0) return this.remoteOnly(streamed, ext);
    const byLabels = new Map<string, StreamedSeries[]>();
    for (const s of streamed) {
      const key = JSON.stringify(s.labels);
      const same = byLabels.get(key);
      if (same === undefined) byLabels.set(key, [s]);
      else same.push(s);
    }
    const out: MergedSeries[] = [];
    for (const p of this.planned) {
      let remote: StoredChunk[] | undefined;
      if (byLabels.size > 0) {
        const key = JSON.stringify(ext.length === 0 ? p.labels : mergeExternal(p.labels, ext));
        const same = byLabels.get(key);
        if (same !== undefined) {
          remote = this.trim(same.shift()!.chunks);
          if (same.length === 0) byLabels.delete(key);
        }
      }
      out.push({ labels: p.labels, planned: p, remote });
    }
    if (byLabels.size === 0) return out;
    for (const same of byLabels.values()) for (const s of same) this.pushRemote(out, s, ext);
    return out.sort((a, b) => compareLabels(a.labels, b.labels));
  }

  /** Remote read's series alone, in its order (sorted by labels) unless stripping the external labels changed it. */
  private remoteOnly(streamed: StreamedSeries[], ext: ReadonlyArray<readonly [string, string]>): MergedSeries[] {
    const out: MergedSeries[] = [];
    for (const s of streamed) this.pushRemote(out, s, ext);
    for (let i = 1; i < out.length; i++) {
      if (compareLabels(out[i - 1]!.labels, out[i]!.labels) > 0) return out.sort((a, b) => compareLabels(a.labels, b.labels));
    }
    return out;
  }

  private pushRemote(out: MergedSeries[], s: StreamedSeries, ext: ReadonlyArray<readonly [string, string]>): void {
    const remote = this.trim(s.chunks);
    if (remote.length === 0 && !this.query.skipChunks) return;
    out.push({ labels: stripExternal(s.labels, ext), planned: undefined, remote });
  }

  /**
   * Remote chunks without what the blocks answer: chunks wholly before
   * their end go, one across it is cut there. Chunks reaching before the
   * query's start are passed on whole, as stored (the client trims).
   */
  private trim(chunks: StoredChunk[]): StoredChunk[] {
    const from = this.end;
    if (from === -Infinity || chunks.every((c) => c.minT >= from)) return chunks;
    const out: StoredChunk[] = [];
    for (const c of chunks) {
      if (c.minT >= from) out.push(c);
      else if (c.maxT >= from) for (const part of cutBelow(c, from)) out.push(part);
    }
    return out;
  }

  chunks(series: SourceSeries, arena: ByteArena): readonly StoredChunk[] {
    const s = series as MergedSeries;
    if (s.planned === undefined) return s.remote!;
    const fromBlocks = this.querier.chunksOf(s.planned, this.query.minT, Math.min(this.query.maxT, this.end - 1), arena);
    if (s.remote === undefined || s.remote.length === 0) return fromBlocks;
    return [...fromBlocks, ...s.remote];
  }

  hasSurrogates(): boolean {
    return this.surrogates;
  }

  close(): void {
    this.done = true;
    if (this.answer !== undefined) {
      this.abort.abort();
      this.answer = undefined;
    }
  }
}

/**
 * The samples of a chunk at or after `from`, encoded again in the chunk's
 * encoding (a chunk crossing the blocks' end: the blocks answer what came
 * before). A histogram chunk's tail is encoded by the histogram chunker
 * (src/chunkenc/chunk-samples.ts): the tail of a valid chunk needs no cut
 * but the one after 120 samples (a head chunk may hold up to 240); its
 * header says gauge for a gauge chunk and unknown otherwise (the chunk
 * before it now ends in a block), which a reader resolves against the
 * block's last sample as Prometheus' does.
 */
function cutBelow(c: StoredChunk, from: number): StoredChunk[] {
  const enc = c.encoding ?? ENCODING_XOR;
  if (enc !== ENCODING_XOR) {
    const d = decodeHistogramChunk(enc, c.data);
    let k = 0;
    while (k < d.t.length && d.t[k]! < from) k++;
    return encodeHistogramChunks(enc, d.t.slice(k), d.h.slice(k));
  }
  const codec = threadCodec();
  const { timestamps, values } = codec.decode(c.data);
  let k = 0;
  const f = BigInt(from);
  while (k < timestamps.length && timestamps[k]! < f) k++;
  const ts = timestamps.subarray(k);
  return [{ minT: Number(ts[0]), maxT: c.maxT, data: codec.encode(ts.slice(), values.slice(k)) }];
}

/** Stored labels with the external labels merged in as Prometheus' remote read merges them: a stored label of the same name wins. */
function mergeExternal(labels: readonly string[], ext: ReadonlyArray<readonly [string, string]>): string[] {
  const out: string[] = [];
  let j = 0;
  for (let i = 0; i < labels.length; i += 2) {
    const name = labels[i]!;
    while (j < ext.length && compareUtf8(ext[j]![0], name) < 0) {
      out.push(ext[j]![0], ext[j]![1]);
      j++;
    }
    if (j < ext.length && ext[j]![0] === name) j++;
    out.push(name, labels[i + 1]!);
  }
  for (; j < ext.length; j++) out.push(ext[j]![0], ext[j]![1]);
  return out;
}

/**
 * Labels as the source answers them: without the external label pairs
 * remote read merged in (a stored pair equal to an external one goes too;
 * the decorator puts it back, so the answer is the same).
 */
function stripExternal(labels: string[], ext: ReadonlyArray<readonly [string, string]>): string[] {
  if (ext.length === 0) return labels;
  const out: string[] = [];
  let j = 0;
  for (let i = 0; i < labels.length; i += 2) {
    const name = labels[i]!;
    while (j < ext.length && compareUtf8(ext[j]![0], name) < 0) j++;
    if (j < ext.length && ext[j]![0] === name && ext[j]![1] === labels[i + 1]) continue;
    out.push(name, labels[i + 1]!);
  }
  return out;
}

function unreachable(url: string, err: unknown, from: number): string {
  const since = Number.isFinite(from) ? ` from ${new Date(from).toISOString()} on` : '';
  return `Prometheus at ${url} did not answer (${(err as Error).message}): its head's data${since} is missing; its blocks answered`;
}
