import { releaseExemplarScratch, takeExemplarScratch } from '../../record/exemplar-batch.js';
import type { HeadWasm } from '../../wasm/head.js';
import type { MetricMetadataEntry } from '../../metadata/metric-metadata.js';
import { releaseScratch, takeScratch } from '../../record/sample-scratch.js';
import { releaseHistogramScratch, takeHistogramScratch } from '../../record/histogram-scratch.js';
import { badParseOption, malformedRequest } from '../../errors/parse-errors.js';
import { METRIC_METADATA, checkMessage } from './message-shapes.js';
import { readMetricMetadata } from './metadata-reader.js';
import { parseWriteRequestV2 } from './parse-write-v2.js';
import { SeriesParser } from './series-parser.js';
import { RequestKeys } from '../series-keys.js';
import { invalidUtf8At } from '../../encoding/utf8-valid.js';
import { WIRE, WireReader, wrongWireType } from '../../encoding/wire-reader.js';

/** Tenant of a write that names none (Thanos Receive's default). */
export const DEFAULT_TENANT = 'default-tenant';
/** Label that carries the tenant (Thanos Receive's `--receive.tenant-label-name` default). */
export const DEFAULT_TENANT_LABEL = 'tenant_id';

/** How to read a remote-write request. */
export interface ParseWriteOptions {
  /**
   * 'thanos': thanos.WriteRequest (timeseries = 1, tenant = 2, replica = 3).
   * 'prometheus': prometheus.WriteRequest (timeseries = 1, metadata = 3),
   * remote write 1.0.
   * 'prometheus-v2': io.prometheus.write.v2.Request (symbols = 4,
   * timeseries = 5), remote write 2.0 (parse-write-v2.ts).
   */
  dialect: 'thanos' | 'prometheus' | 'prometheus-v2';
  /** Name of the tenant label added to every series (default 'tenant_id'); must not be empty. */
  tenantLabel?: string;
  /**
   * Tenant from outside the message (the HTTP THANOS-TENANT header). When
   * undefined or empty: the thanos tenant field; when that is empty or
   * absent too: 'default-tenant'.
   */
  tenant?: string;
}

/** What a remote-write request held, the valid part as an append batch. */
export interface ParsedWrite {
  /**
   * AppendBatch (src/record/sample-batch.ts) of the valid series that have
   * float samples, in request order: tenant label merged in (it wins over a
   * written label of the same name), label hashes filled. Owned by the caller.
   */
  batch: ArrayBuffer;
  /** The tenant the series were written for. */
  tenant: string;
  /** thanos field 3 (0 when absent, and always for 'prometheus'). */
  replica: number;
  /** TimeSeries in the request, valid or not. */
  series: number;
  /** Float samples in the batch. */
  samples: number;
  /** Series refused for their labels (their samples are not in the batch). */
  invalidSeries: number;
  /** What was wrong with the first refused series, e.g. `series 3 {__name__="up", b="1", a="2"}: label names not sorted ("b" before "a")` (index from 0). */
  firstInvalid?: string;
  /**
   * Histogram batch (src/record/histogram-batch.ts) of the native
   * histograms that passed Prometheus' checks, in valid series, in request
   * order: tenant label merged in, label hashes filled. Owned by the
   * caller; absent when there is none.
   */
  histogramBatch?: ArrayBuffer;
  /** Native histogram samples in `histogramBatch`. */
  histogramSamples: number;
  /** Native histograms refused by Prometheus' checks (in series with valid labels; InvalidArgument). */
  invalidHistograms: number;
  /**
   * What was wrong with the first refused histogram, naming its series,
   * e.g. `series 5 {__name__="rpc_seconds"}: histogram 0 at 1000: negative
   * side: bucket number 2 has observation count of -1: histogram has a
   * bucket whose observation count is negative` (indices from 0).
   */
  firstInvalidHistogram?: string;
  /** Exemplars in series with valid labels (in `exemplarBatch`, or refused as `invalidExemplars`). */
  exemplars: number;
  /**
   * Those exemplars that could be read, as an exemplar batch
   * (src/record/exemplar-batch.ts; owned by the caller); absent when none.
   */
  exemplarBatch?: ArrayBuffer;
  /** Metric metadata the request carried (1.0: its metadata field; 2.0: per series, one entry per family, the last one given); absent when none. */
  metadata?: MetricMetadataEntry[];
  /** 2.0: series with valid labels but neither samples nor histograms (the specification requires one of them); 0 for 1.0. */
  emptySeries: number;
  /** The first such series, e.g. `series 2 {__name__="up"}`. */
  firstEmpty?: string;
  /** 2.0: exemplars refused (labels_refs outside the symbols table or odd in length, labels not UTF-8); 0 for 1.0, which drops such exemplars silently. */
  invalidExemplars: number;
  /** What was wrong with the first refused exemplar. */
  firstInvalidExemplar?: string;
  /** Entries of `batch` given by series ref (found in the series cache), not by labels. */
  refEntries: number;
  /**
   * Series the cache may learn (series-cache.ts): five int32 words each,
   * the entry of `batch` (given by labels) and the TimeSeries' key
   * (four words); absent when none.
   */
  keys?: ArrayBuffer;
}

/** Int32 words of one record of ParsedWrite.keys. */
export const KEY_RECORD_WORDS = 5;

let keyScratch = new Int32Array(KEY_RECORD_WORDS * 1024);

// Top-level tags (field << 3 | wire type).
const TIMESERIES = (1 << 3) | WIRE.len;
const THANOS_TENANT = (2 << 3) | WIRE.len;
const THANOS_REPLICA = (3 << 3) | WIRE.varint;
const PROMETHEUS_METADATA = (3 << 3) | WIRE.len;

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** The top-level fields, read before any series because tenant may follow the series. */
interface RequestHead {
  series: number;
  tenantAt: number;
  tenantLen: number;
  replica: number;
}

function readHead(r: WireReader, dialect: ParseWriteOptions['dialect']): RequestHead {
  const end = r.buf.length;
  const head: RequestHead = { series: 0, tenantAt: 0, tenantLen: 0, replica: 0 };
  const thanos = dialect === 'thanos';
  r.pos = 0;
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (tag === TIMESERIES) {
      r.pos = r.len(end);
      head.series++;
    } else if (thanos && tag === THANOS_TENANT) {
      const stop = r.len(end);
      head.tenantAt = r.pos;
      head.tenantLen = stop - r.pos;
      r.pos = stop;
    } else if (thanos && tag === THANOS_REPLICA) {
      head.replica = r.int64Number(end);
    } else if (!thanos && tag === PROMETHEUS_METADATA) {
      checkMessage(r, r.len(end), METRIC_METADATA);
    } else if (field === 1 || (thanos && field === 2) || field === 3) {
      const want = thanos && field === 3 ? WIRE.varint : WIRE.len;
      throw wrongWireType(at, 'WriteRequest', field, tag & 7, want);
    } else {
      r.skip(tag & 7, end);
    }
  }
  return head;
}

function tenantOf(r: WireReader, head: RequestHead, fromOutside: string | undefined): string {
  if (fromOutside !== undefined && fromOutside !== '') return fromOutside;
  if (head.tenantLen === 0) return DEFAULT_TENANT;
  const bad = invalidUtf8At(r.buf, head.tenantAt, head.tenantAt + head.tenantLen);
  if (bad >= 0) throw malformedRequest(bad, 'tenant is not valid UTF-8');
  return strictDecoder.decode(r.buf.subarray(head.tenantAt, head.tenantAt + head.tenantLen));
}

/**
 * The tenant a thanos.WriteRequest names (its field 2), 'default-tenant'
 * when it names none or the bytes are not a valid message. A walk over
 * the top-level fields only, for naming the tenant of a write refused
 * before it is parsed (a refusal's metrics); not for the write path.
 */
export function writeRequestTenant(bytes: Uint8Array): string {
  const r = new WireReader(bytes);
  try {
    return tenantOf(r, readHead(r, 'thanos'), undefined);
  } catch {
    // Not a valid message: the parse that follows refuses it.
    return DEFAULT_TENANT;
  }
}

/**
 * Parses a remote-write request from its protobuf bytes straight into an
 * append batch: no message objects, no per-sample JS values. Label sets are
 * checked as Thanos Receive checks them (no labels, empty name or value,
 * duplicate or unsorted names, and valid UTF-8); a series that fails is
 * counted and left out, the rest still counts. Fields may come in any
 * order, unknown fields are skipped, and a scalar given twice takes the
 * last value, as protobuf says.
 *
 * Synchronous and CPU-bound: call it in a pool worker (parseWriteInPool),
 * not on the event loop. `bytes` is only read, and not kept.
 *
 * @throws MalformedRequestError (with the byte offset) when the bytes are
 *   not a valid message: truncated, a bad varint, a length past its
 *   message, a group or invalid wire type, a known field with the wrong
 *   wire type, or a tenant field that is not UTF-8.
 * @example
 * const parsed = parseWriteRequest(body, { dialect: 'thanos' }, wasm);
 * const result = db.append(parsed.batch);
 * if (parsed.invalidSeries > 0) throw invalidArgument(parsed.firstInvalid);
 */
export function parseWriteRequest(bytes: Uint8Array, opts: ParseWriteOptions, wasm: HeadWasm, cache?: SharedArrayBuffer, spare?: ArrayBuffer): ParsedWrite {
  const tenantLabel = opts.tenantLabel ?? DEFAULT_TENANT_LABEL;
  if (tenantLabel === '') throw badParseOption('tenantLabel must not be empty');
  if (opts.dialect === 'prometheus-v2') return parseWriteRequestV2(bytes, { ...opts, tenantLabel }, wasm);
  if (opts.dialect !== 'thanos' && opts.dialect !== 'prometheus') throw badParseOption(`unknown dialect ${JSON.stringify(opts.dialect)}`);
  const r = new WireReader(bytes);
  const head = readHead(r, opts.dialect);
  const tenant = tenantOf(r, head, opts.tenant);

  const scratch = takeScratch();
  const exemplarScratch = takeExemplarScratch();
  const histogramScratch = takeHistogramScratch();
  let parser: SeriesParser;
  let batch: ArrayBuffer;
  let histogramBatch: ArrayBuffer | undefined;
  let exemplarBatch: ArrayBuffer | undefined;
  let metadata: MetricMetadataEntry[] | undefined;
  let keys: RequestKeys | undefined;
  let learned = 0;
  try {
    parser = new SeriesParser(r, scratch, encoder.encode(tenantLabel), encoder.encode(tenant), histogramScratch, exemplarScratch);
    if (cache !== undefined && head.series > 0) keys = RequestKeys.of(wasm, bytes, head.series, parser.tenantKey, new Int32Array(cache));
    // Second walk over the top level: the first one checked it, so only
    // series (and 1.0's metadata) need reading now.
    const end = bytes.length;
    const prometheus = opts.dialect === 'prometheus';
    r.pos = 0;
    let index = 0;
    while (r.pos < end) {
      const tag = r.tag(end);
      if (tag === TIMESERIES) {
        const stop = r.len(end);
        if (keys === undefined || !keys.keyed(index)) {
          parser.series(stop, index);
        } else {
          const ref = keys.ref(index);
          if (ref !== 0) {
            parser.knownSeries(keys.labelsEnd(index), stop, ref);
          } else {
            const entry = scratch.n;
            parser.series(stop, index);
            if (scratch.n > entry) {
              const at = learned * KEY_RECORD_WORDS;
              if (at + KEY_RECORD_WORDS > keyScratch.length) {
                const next = new Int32Array(keyScratch.length * 2);
                next.set(keyScratch);
                keyScratch = next;
              }
              keyScratch[at] = entry;
              keys.copyKey(index, keyScratch, at + 1);
              learned++;
            }
          }
        }
        index++;
        r.pos = stop;
      } else if (prometheus && tag === PROMETHEUS_METADATA) {
        const entry = readMetricMetadata(r, r.len(end));
        if (entry !== undefined) (metadata ??= []).push(entry);
      } else {
        r.skip(tag & 7, end);
      }
    }
    batch = scratch.finish(wasm, spare);
    if (histogramScratch.n > 0) histogramBatch = histogramScratch.finish(wasm);
    exemplarBatch = exemplarScratch.finish();
  } finally {
    // Malformed requests too: a stream of them must not allocate scratch each time.
    releaseScratch(scratch);
    releaseExemplarScratch(exemplarScratch);
    releaseHistogramScratch(histogramScratch);
    keys?.free();
  }

  const parsed: ParsedWrite = {
    batch,
    tenant,
    replica: head.replica,
    series: head.series,
    samples: parser.samples,
    invalidSeries: parser.invalidSeries,
    histogramSamples: parser.histogramSamples,
    invalidHistograms: parser.invalidHistograms,
    exemplars: parser.exemplars,
    emptySeries: 0,
    invalidExemplars: 0,
    refEntries: parser.knownEntries,
  };
  if (learned > 0) parsed.keys = keyScratch.slice(0, learned * KEY_RECORD_WORDS).buffer;
  if (parser.firstInvalid !== undefined) parsed.firstInvalid = parser.firstInvalid;
  if (histogramBatch !== undefined) parsed.histogramBatch = histogramBatch;
  if (parser.firstInvalidHistogram !== undefined) parsed.firstInvalidHistogram = parser.firstInvalidHistogram;
  if (exemplarBatch !== undefined) parsed.exemplarBatch = exemplarBatch;
  if (metadata !== undefined) parsed.metadata = metadata;
  return parsed;
}
