/**
 * What parsing a remote-write request takes and gives (parse-write.ts reads
 * 1.0 and Thanos' message, parse-write-v2.ts 2.0's), and the tenant
 * defaults of Thanos Receive.
 */
import { badParseOption } from '../../errors/errors.js';
import type { MetricMetadataEntry } from '../../metadata/metric-metadata.js';
import type { OtlpRefused } from '../../otlp/otlp-body.js';

/** Tenant of a write that names none (Thanos Receive's default). */
export const DEFAULT_TENANT = 'default-tenant';
/** Label that carries the tenant (Thanos Receive's `--receive.tenant-label-name` default). */
export const DEFAULT_TENANT_LABEL = 'tenant_id';

/**
 * The tenant label of `opts` (default 'tenant_id').
 *
 * @throws RangeError when it is empty.
 */
export function tenantLabelOf(opts: ParseWriteOptions): string {
  const tenantLabel = opts.tenantLabel ?? DEFAULT_TENANT_LABEL;
  if (tenantLabel === '') throw badParseOption('tenantLabel must not be empty');
  return tenantLabel;
}

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
   * absent too: `defaultTenant`.
   */
  tenant?: string;
  /** The tenant of a write that names none (--receive.default-tenant-id; default 'default-tenant'). */
  defaultTenant?: string;
}

/** What a remote-write request held, the valid part as an append batch. */
export interface ParsedWrite {
  /**
   * AppendBatch (src/record/append-batch.ts) of the valid series that have
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
  /** Entries of `histogramBatch` given by series ref. */
  histogramRefEntries: number;
  /**
   * Series the cache may learn (series-cache.ts): five int32 words each,
   * the entry of `batch` (given by labels), or ~entry of `histogramBatch`
   * for a series with only histograms, and the TimeSeries' key (four
   * words); absent when none.
   */
  keys?: ArrayBuffer;
  /** An OTLP write: the data points the translation refused (src/otlp), before any of the checks above. */
  otlp?: OtlpRefused;
}
