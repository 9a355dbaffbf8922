/**
 * The one Writer: every way samples get into the engine (HTTP remote
 * write 1.0 and 2.0, gRPC RemoteWrite, the library's append) hands it the
 * request's bytes, as Thanos Receive's handlers all call pkg/receive's
 * Writer. It applies the write limits, parses in the worker pool, keeps
 * the series cache, appends, and names what was refused.
 */
import type { Db } from '../db/db.js';
import { joinRejections, rejectionError } from './rejections.js';
import { viewAppendBatch } from '../record/append-batch.js';
import { viewHistogramBatch } from '../record/histogram-batch.js';
import type { TaskRunner } from '../pool/task.js';
import { writeRequestTenant } from './parse/parse-write.js';
import { parseWriteInPool, recycleBatch, recycleHistogramBatch } from './parse-task.js';
import type { ParsedWrite } from './parse/parse-write.js';
import type { AppendResult } from '../db/db.js';
import { TurnBudget } from '../background/yielder.js';
import { snappyDecodedLength } from '../encoding/snappy-block.js';
import type { WriteAdmission } from './limits/write-limiter.js';
import { EXEMPLAR_MAX_LABEL_CHARS } from '../exemplars/exemplar-store.js';
import { invalidArgument } from '../errors/errors.js';
import { SeriesCache, type CacheTicket } from './series-cache.js';
import type { ExemplarAppendResult } from '../exemplars/exemplar-appender.js';
import type { OtlpBody, OtlpRefused } from '../otlp/otlp-body.js';

/**
 * What a remote write stored, and what it refused (the error to answer
 * with, if any). The counts are remote write 2.0's `Written` headers, as
 * Prometheus counts them: a sample equal to the one stored at its time is
 * written (stored once), and so is an exemplar equal to its series' newest.
 */
export interface WriteOutcome {
  samples: number;
  /** Native histogram samples, counted as samples are. */
  histograms: number;
  exemplars: number;
  error?: Error;
  /** An OTLP write: the data points its translation refused (src/otlp). */
  otlp?: OtlpRefused;
}

/** What every write of one Writer shares. */
export interface WriterOptions {
  /** --tenant-label-name: the label every series gets its tenant in. */
  tenantLabel: string;
  /** --receive.default-tenant-id: the tenant of a write that names none (default 'default-tenant'). */
  defaultTenant?: string;
  /** The write limits to apply (none when absent). */
  limits?: WriteAdmission;
}

/** How to take one remote write. */
export interface WriteOptions {
  dialect: 'thanos' | 'prometheus' | 'prometheus-v2';
  /** The tenant from outside the message (HTTP's THANOS-TENANT header); the message's own when undefined. */
  tenant?: string;
  /**
   * The bytes are a snappy block (HTTP remote write), or with `framed` a
   * snappy-framed stream (gRPC's grpc-encoding: snappy), decompressed in
   * the pool first, up to this size.
   */
  snappy?: { maxDecodedBytes: number; framed?: true };
  /** The bytes are an OTLP/HTTP metrics body, translated in the pool (src/otlp); `dialect` is then 'prometheus'. */
  otlp?: OtlpBody;
  /**
   * The request's size as received, when `bytes` is longer: a gRPC
   * message handed over behind a field the parser skips
   * (src/grpc/message-bytes.ts). Default: `bytes.length`.
   */
  size?: number;
}

/**
 * Writes remote-write requests into one engine. One Writer per Db: it
 * owns the series cache, which follows the head's series (the head tells
 * it which it drops).
 *
 * @example
 * const writer = new Writer(db, pool, { tenantLabel: 'tenant_id' });
 * const outcome = await writer.write(body, { dialect: 'prometheus', snappy: { maxDecodedBytes: 256 << 20 } });
 * if (outcome.error !== undefined) throw outcome.error;
 */
export class Writer {
  /** Remote-write series by the key of their raw label bytes, shared with the pool (series-cache.ts). */
  readonly seriesCache = new SeriesCache();

  constructor(readonly db: Db, private readonly pool: TaskRunner, private readonly opts: WriterOptions) {
    const head = db.head;
    head.onRelease = (ids) => this.seriesCache.released(ids, head);
    // After a restart, sized for the series the head already holds.
    this.seriesCache.reserve(head.seriesCount);
  }

  /**
   * One remote-write request, from raw bytes: parsed in the pool (labels
   * validated, tenant label merged, hashes computed), appended by the
   * engine on this thread. Valid series are written even when others are
   * refused. Native histograms (an integer or a float one per sample) go
   * to the head after the float samples, as Thanos Receive appends a
   * series' samples before its histograms. Refusals: invalid label sets
   * and histograms that fail Prometheus' checks are InvalidArgument,
   * naming the first series and what was wrong; sample conflicts (floats
   * and histograms alike) AlreadyExists (when both happen,
   * InvalidArgument, the one retrying cannot fix, names both).
   *
   * Exemplars go to the exemplar store once the samples are appended
   * (their series must be in the head, as in Prometheus); metadata to the
   * metadata store. Remote write 2.0 also refuses (InvalidArgument) series
   * with neither samples nor histograms, and exemplars with invalid
   * references, out of order, with labels too long or of a series not
   * held; 1.0 drops such exemplars silently, as Prometheus and Thanos
   * Receive do.
   *
   * With limits, the write first goes through them (src/ingest/limits:
   * memory, concurrency, the tenant's head series and request size before
   * parsing where the tenant is known, series and samples after parsing);
   * a write they refuse throws their error and stores nothing.
   *
   * Ownership of `bytes`: see parseWriteInPool (its buffer may be moved
   * to a worker and detached here).
   */
  async write(bytes: Uint8Array, opts: WriteOptions): Promise<WriteOutcome> {
    const limits = this.opts.limits;
    if (limits === undefined) return this.take(bytes, opts, undefined);
    // Over gRPC the tenant is in the message: read it only to name a refused write's tenant.
    limits.enter(() => opts.tenant ?? writeRequestTenant(bytes, this.opts.defaultTenant));
    try {
      return await this.take(bytes, opts, limits);
    } finally {
      limits.leave();
    }
  }

  private async take(bytes: Uint8Array, opts: WriteOptions, limits: WriteAdmission | undefined): Promise<WriteOutcome> {
    const db = this.db;
    const { snappy, otlp, size: given, ...rest } = opts;
    const parseOpts = { ...rest, tenantLabel: this.opts.tenantLabel, ...(this.opts.defaultTenant === undefined ? {} : { defaultTenant: this.opts.defaultTenant }) };
    // The pool may take the bytes' buffer: measure them first.
    const size = given ?? bytes.length;
    if (limits !== undefined && opts.tenant !== undefined) {
      const decoded = snappy === undefined || snappy.framed ? -1 : snappyDecodedLength(bytes);
      limits.admitTenant(opts.tenant, decoded < 0 ? { body: size } : { body: size, decoded }, db);
    }
    const cache = this.seriesCache;
    const ticket = cache.begin();
    const labelsOf = (id: number): readonly string[] | undefined => {
      const s = db.head.get(id);
      return s === undefined ? undefined : db.head.labelsOf(s);
    };
    let parsed: ParsedWrite;
    let floats: AppendedBatch;
    let rejectedFloats: ReturnType<typeof rejectionError>;
    let histograms: AppendedBatch | undefined;
    try {
      const body = snappy !== undefined ? { snappy, cache: ticket.table } : otlp !== undefined ? { otlp, cache: ticket.table } : { cache: ticket.table };
      parsed = await parseWriteInPool(this.pool, bytes, parseOpts, body);
      if (limits !== undefined && opts.tenant === undefined) limits.admitTenant(parsed.tenant, { body: size }, db);
      // Kept even when the content is refused next: the worker that read it
      // (OTLP's memo) passes it on again only a minute later.
      if (parsed.metadata !== undefined) db.metadata.update(parsed.tenant, parsed.metadata);
      limits?.admitContent(parsed.tenant, parsed.series, parsed.samples + parsed.histogramSamples);
      floats = await this.appendFloats(parsed, ticket);
      // Rejections are named from the batch: it is given back once they are.
      rejectedFloats = floats.result === undefined ? undefined : rejectionError(floats.result, floats.batch, labelsOf);
      recycleBatch(parsed.batch);
      // Within the ticket: the histogram batch may name series by ref too.
      if (parsed.histogramBatch !== undefined) histograms = await this.appendHistograms(parsed, ticket);
    } finally {
      cache.end(ticket);
    }
    const hResult = histograms?.result;
    const exemplars = parsed.exemplarBatch === undefined ? undefined : db.appendExemplars(parsed.exemplarBatch);
    const written: WriteOutcome = {
      samples: floats.result === undefined ? 0 : floats.result.appended + floats.result.ignored,
      histograms: hResult === undefined ? 0 : hResult.appended + hResult.ignored,
      exemplars: exemplars?.written ?? 0,
    };
    if (parsed.otlp !== undefined) written.otlp = parsed.otlp;
    const rejected = joinRejections(rejectedFloats, histograms?.result === undefined ? undefined : rejectionError(histograms.result, histograms.batch, labelsOf));
    // Appended and its rejections named: nothing reads the histogram batch any more.
    if (parsed.histogramBatch !== undefined) recycleHistogramBatch(parsed.histogramBatch);
    const problems = refusedParts(parsed, opts.dialect === 'prometheus-v2' ? exemplars : undefined);
    if (problems.length > 0) {
      if (rejected !== undefined) problems.push(rejected.message);
      return { ...written, error: invalidArgument(`write of tenant ${JSON.stringify(parsed.tenant)} partly refused: ${problems.join('; ')}`) };
    }
    return rejected === undefined ? written : { ...written, error: rejected };
  }

  /**
   * Appends a parsed write's float samples. Entries given by labels may
   * each create a series (several µs with its postings): many of them are
   * appended in steps of APPEND_STEP (appendInSteps).
   */
  private appendFloats(parsed: ParsedWrite, ticket: CacheTicket): Promise<AppendedBatch> {
    const batch = parsed.batch;
    const entries = viewAppendBatch(batch).entries;
    const step = entries - parsed.refEntries > APPEND_STEP ? APPEND_STEP : entries;
    return this.appendInSteps(parsed, ticket, { batch, entries, step, refEntries: parsed.refEntries, histograms: false });
  }

  /**
   * Appends a parsed write's histogram batch in steps of HISTOGRAM_STEP
   * entries: a request of thousands of histograms does not hold the loop
   * for tens of milliseconds at once.
   */
  private appendHistograms(parsed: ParsedWrite, ticket: CacheTicket): Promise<AppendedBatch> {
    const batch = parsed.histogramBatch!;
    const entries = viewHistogramBatch(batch).entries;
    const step = entries > HISTOGRAM_STEP ? HISTOGRAM_STEP : entries;
    return this.appendInSteps(parsed, ticket, { batch, entries, step, refEntries: parsed.histogramRefEntries, histograms: true });
  }

  /**
   * Appends a batch `s.step` entries at a time, each step in a turn of the
   * event loop with time to spare (appendTurns, shared by every write).
   * Series given by ref are checked before each step (they may have been
   * dropped meanwhile), and the series the pool's worker did not find in
   * the cache are learned from the ids the append gave them. Returns what
   * was appended (undefined for an empty batch) and the batch as appended
   * (a new one when refs had to be resolved).
   */
  private async appendInSteps(parsed: ParsedWrite, ticket: CacheTicket, s: AppendSteps): Promise<AppendedBatch> {
    const db = this.db;
    const cache = this.seriesCache;
    const { entries, step, refEntries, histograms } = s;
    let batch = s.batch;
    cache.hits += refEntries;
    // The shared scratch only when no turn is awaited between the append and the learning.
    const ids = parsed.keys === undefined ? undefined : step < entries || histograms ? new Uint32Array(entries) : entryIds(entries);
    let result: AppendResult | undefined;
    for (let from = 0; from < entries; from += step) {
      const wait = appendTurns.take();
      if (wait !== undefined) await wait;
      if (refEntries > 0) batch = cache.resolve(batch, db.head);
      const range = step < entries ? { from, to: Math.min(entries, from + step) } : undefined;
      const r = histograms ? db.appendHistograms(batch, range, ids) : db.append(batch, ids, range);
      result = result === undefined ? r : addAppendResults(result, r);
    }
    if (ids !== undefined) cache.learn(ticket, parsed.keys!, ids, histograms);
    return { result, batch };
  }
}

/** One kind of a parsed write's batch, as appendInSteps appends it. */
interface AppendSteps {
  batch: ArrayBuffer;
  entries: number;
  /** Entries a step (`entries` for one step over the whole batch). */
  step: number;
  refEntries: number;
  histograms: boolean;
}

/** What appendInSteps appended, and the batch as appended. */
interface AppendedBatch {
  result: AppendResult | undefined;
  batch: ArrayBuffer;
}

/**
 * What of a parsed write was refused before any append, each part naming
 * the first case; with `exemplars` (remote write 2.0, which may not answer
 * 2xx while anything sent was not written) also the exemplars the store
 * refused. 1.0 drops such exemplars silently, as Prometheus and Thanos
 * Receive do.
 */
function refusedParts(parsed: ParsedWrite, exemplars: ExemplarAppendResult | undefined): string[] {
  const problems: string[] = [];
  if (parsed.invalidSeries > 0) problems.push(`${parsed.invalidSeries} series with invalid labels (first: ${parsed.firstInvalid})`);
  if (parsed.emptySeries > 0) problems.push(`${parsed.emptySeries} series without samples or histograms (first: ${parsed.firstEmpty})`);
  if (parsed.invalidHistograms > 0) problems.push(`${parsed.invalidHistograms} invalid native histograms (first: ${parsed.firstInvalidHistogram})`);
  if (parsed.invalidExemplars > 0) problems.push(`${parsed.invalidExemplars} invalid exemplars (first: ${parsed.firstInvalidExemplar})`);
  if (exemplars !== undefined) {
    if (exemplars.outOfOrder > 0) problems.push(`${exemplars.outOfOrder} out of order exemplars (first: ${exemplars.firstOutOfOrder})`);
    if (exemplars.tooLong > 0) problems.push(`${exemplars.tooLong} exemplars with labels over ${EXEMPLAR_MAX_LABEL_CHARS} characters`);
    if (exemplars.unknownSeries > 0) problems.push(`${exemplars.unknownSeries} exemplars of series this store does not hold (none of their samples was taken)`);
  }
  return problems;
}

/** Entries appended at a time when a write may create many series. */
const APPEND_STEP = 500;
/** Histogram entries appended at a time: each costs several float entries' time (a chunk per sample). */
const HISTOGRAM_STEP = 200;

/** What two appends of one batch's consecutive ranges did together (`a` the earlier). */
function addAppendResults(a: AppendResult, b: AppendResult): AppendResult {
  const first = { ...b.first, ...a.first };
  return {
    appended: a.appended + b.appended,
    oooAppended: a.oooAppended + b.oooAppended,
    ignored: a.ignored + b.ignored,
    outOfOrder: a.outOfOrder + b.outOfOrder,
    conflict: a.conflict + b.conflict,
    tooOld: a.tooOld + b.tooOld,
    tooFarInFuture: a.tooFarInFuture + b.tooFarInFuture,
    created: a.created + b.created,
    minT: Math.min(a.minT, b.minT),
    maxT: Math.max(a.maxT, b.maxT),
    first,
  };
}

/** Appends that become ready together share a turn of the event loop, at most 4 ms of them (yielder.ts). */
const appendTurns = new TurnBudget(4);

let idScratch = new Uint32Array(4096);

/** A scratch for the series ids of `n` entries (Db.append's `ids`), valid until the next write on this thread. */
function entryIds(n: number): Uint32Array {
  if (idScratch.length < n) idScratch = new Uint32Array(Math.max(n, idScratch.length * 2));
  return idScratch;
}
