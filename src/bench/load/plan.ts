/**
 * Encodes a whole `strata bench remote-write` load before any clock starts:
 * scrape after scrape, the catalogue's series in groups of `perRequest`,
 * each group one snappy-compressed prometheus.WriteRequest (remote write
 * 1.0). Request i is group i % groups of scrape floor(i / groups); a
 * sender keeps that order per group, so every series' samples arrive in
 * time order.
 *
 * Churn replaces whole targets (a host, a pod), as a rollout does: each
 * scrape, `churn` x targets are replaced (the fraction carried over), in
 * turn, by their next generation, whose series have other labels and
 * start their values afresh. A share of the series (`histogramShare`,
 * spread evenly) sends native histogram samples instead of floats.
 *
 * The same options give the same bytes. Hot loop: one reused scratch
 * buffer per request; per series only a copy of its label bytes (kept per
 * series, rebuilt when its target churns) and a few bytes of sample.
 */
import { compressSync } from 'snappy';
import type { Catalogue } from './catalogue.js';
import { HistogramStepper, histogramSlots } from './histograms.js';
import { putUvarint, uvarintSize } from '../../encoding/varint.js';
import { labelBytes, lengthDelimited } from './protobuf.js';
import { ValueStepper } from './values.js';

export interface PlanOptions {
  catalogue: Catalogue;
  /** First scrape time (ms); each target's phase within the interval is added. */
  start: number;
  intervalMs: number;
  /** Samples per series (scrapes). */
  scrapes: number;
  /** Series per request. */
  perRequest: number;
  /** Targets replaced each scrape, as a share of all targets (0: none). */
  churn: number;
  /** Share of the series that carry native histograms instead of floats (0..1). */
  histogramShare: number;
  /** Stop after the request that reaches this many samples (float and histogram); 0: all scrapes. */
  maxSamples: number;
  /** Encoded (compressed) bytes the load may take; more throws {@link LoadTooLargeError}. */
  maxBytes: number;
  /** Called after each encoded scrape. */
  onScrape?: (scrape: number, compressedBytes: number) => void;
  /** Encoding stops (with {@link EncodingStoppedError}) once this aborts; checked between scrapes. */
  signal?: AbortSignal;
}

export interface EncodedPlan {
  /** Compressed WriteRequests in send order. */
  requests: Buffer[];
  /** Requests per scrape: request i belongs to group i % groups. */
  groups: number;
  /** Float samples and histogram samples of each request. */
  samples: Uint32Array;
  histograms: Uint32Array;
  /** Active series (per scrape) and series ever sent (churn adds new ones). */
  series: number;
  seriesCreated: number;
  scrapes: number;
  totalSamples: number;
  totalHistograms: number;
  rawBytes: number;
  compressedBytes: number;
  /** Smallest and largest sample timestamp (ms). */
  minTime: number;
  maxTime: number;
  /** Targets replaced by churn over the whole load. */
  targetsReplaced: number;
}

/** Encoding was stopped through the signal (Ctrl-C). */
export class EncodingStoppedError extends Error {
  override readonly name = 'EncodingStoppedError';
}

/** The load would not fit the memory allowed for it. */
export class LoadTooLargeError extends Error {
  override readonly name = 'LoadTooLargeError';
}

/** The TimeSeries label fields (labels = 1, repeated) of series i in `generation`. */
function seriesLabelBytes(cat: Catalogue, i: number, generation: number): Buffer {
  const flat = cat.labels(i, generation);
  const body: number[] = [];
  for (let k = 0; k < flat.length; k += 2) body.push(...lengthDelimited(1, labelBytes(flat[k]!, flat[k + 1]!)));
  return Buffer.from(body);
}

/**
 * Encodes the whole load (see the module comment). Yields to the event
 * loop between scrapes, so that Ctrl-C and progress get their turn.
 */
export async function encodePlan(o: PlanOptions): Promise<EncodedPlan> {
  const cat = o.catalogue;
  const count = cat.count;
  const groups = Math.ceil(count / o.perRequest);
  const generation = new Uint32Array(cat.hosts);
  const labels: Buffer[] = new Array(count);
  let labelTotal = 0;
  for (let i = 0; i < count; i++) {
    labels[i] = seriesLabelBytes(cat, i, 0);
    labelTotal += labels[i]!.length;
  }
  // Series of a target are contiguous (catalogues fill targets one after another).
  const firstOf = new Uint32Array(cat.hosts + 1).fill(count);
  for (let i = count - 1; i >= 0; i--) firstOf[cat.hostOf[i]!] = i;
  const isHistogram = histogramSlots(count, o.histogramShare);
  const values = new ValueStepper(cat, 42, o.intervalMs);
  const hist = new HistogramStepper(isHistogram);
  const value = new Float64Array(count);
  const time = new Float64Array(count);

  let scratch = Buffer.allocUnsafe(Math.max(1024, Math.ceil(labelTotal / Math.max(1, groups)) * 2));
  const requests: Buffer[] = [];
  const samplesOf: number[] = [];
  const histogramsOf: number[] = [];
  let rawBytes = 0;
  let compressedBytes = 0;
  let minTime = Infinity;
  let maxTime = -Infinity;
  let totalSamples = 0;
  let totalHistograms = 0;
  let seriesCreated = count;
  let churnDebt = 0;
  let nextChurn = 0;
  let targetsReplaced = 0;
  let scrapesDone = 0;

  encoding: for (let s = 0; s < o.scrapes; s++) {
    if (s > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    if (o.signal?.aborted) throw new EncodingStoppedError(`encoding stopped at scrape ${s + 1} of ${o.scrapes}`);
    if (s > 0 && o.churn > 0) {
      churnDebt += o.churn * cat.hosts;
      // Bounded: at most every target once a scrape.
      for (let n = 0; churnDebt >= 1 && n < cat.hosts; n++, churnDebt -= 1) {
        const t = nextChurn;
        nextChurn = (nextChurn + 1) % cat.hosts;
        generation[t]!++;
        targetsReplaced++;
        for (let i = firstOf[t]!; i < count && cat.hostOf[i] === t; i++) {
          labels[i] = seriesLabelBytes(cat, i, generation[t]!);
          values.reset(i);
          hist.reset(i);
          seriesCreated++;
        }
      }
      if (churnDebt >= 1) churnDebt = churnDebt % 1;
    }
    values.next(o.start, value, time);
    for (let g = 0; g < groups; g++) {
      const first = g * o.perRequest;
      const end = Math.min(count, first + o.perRequest);
      let at = 0;
      let floats = 0;
      let histograms = 0;
      for (let i = first; i < end; i++) {
        const lb = labels[i]!;
        const ts = time[i]!;
        if (ts < minTime) minTime = ts;
        if (ts > maxTime) maxTime = ts;
        let sample: Uint8Array | undefined;
        let sampleLen: number;
        if (isHistogram[i] === 1) {
          sample = hist.next(i, ts);
          sampleLen = sample.length;
          histograms++;
        } else {
          sampleLen = 1 + 8 + 1 + uvarintSize(ts); // value (fixed64), timestamp (varint)
          floats++;
        }
        const body = lb.length + 1 + uvarintSize(sampleLen) + sampleLen;
        const need = at + 1 + uvarintSize(body) + body;
        if (need > scratch.length) {
          const bigger = Buffer.allocUnsafe(Math.max(need, scratch.length * 2));
          scratch.copy(bigger, 0, 0, at);
          scratch = bigger;
        }
        scratch[at++] = 0x0a; // WriteRequest.timeseries = 1
        at = putUvarint(scratch, at, body);
        at += lb.copy(scratch, at);
        if (sample !== undefined) {
          scratch[at++] = 0x22; // TimeSeries.histograms = 4
          at = putUvarint(scratch, at, sampleLen);
          scratch.set(sample, at);
          at += sampleLen;
        } else {
          scratch[at++] = 0x12; // TimeSeries.samples = 2
          at = putUvarint(scratch, at, sampleLen);
          scratch[at++] = 0x09; // Sample.value = 1, fixed64
          scratch.writeDoubleLE(value[i]!, at);
          at += 8;
          scratch[at++] = 0x10; // Sample.timestamp = 2, varint
          at = putUvarint(scratch, at, ts);
        }
      }
      // compressSync hands back a buffer sized for the worst case; keep an
      // exact copy so that the load stays at its compressed size in memory.
      const compressed = Buffer.from(compressSync(scratch.subarray(0, at)));
      rawBytes += at;
      compressedBytes += compressed.length;
      if (compressedBytes > o.maxBytes) {
        throw new LoadTooLargeError(`the load takes more than ${Math.round(o.maxBytes / 2 ** 20)} MiB encoded (at scrape ${s + 1} of ${o.scrapes}); lower --series or --samples-per-series, or raise --max-encoded`);
      }
      requests.push(compressed);
      samplesOf.push(floats);
      histogramsOf.push(histograms);
      totalSamples += floats;
      totalHistograms += histograms;
      if (o.maxSamples > 0 && totalSamples + totalHistograms >= o.maxSamples) {
        scrapesDone = s + 1;
        break encoding;
      }
    }
    scrapesDone = s + 1;
    o.onScrape?.(s, compressedBytes);
  }
  return {
    requests,
    groups,
    samples: Uint32Array.from(samplesOf),
    histograms: Uint32Array.from(histogramsOf),
    series: count,
    seriesCreated,
    scrapes: scrapesDone,
    totalSamples,
    totalHistograms,
    rawBytes,
    compressedBytes,
    minTime,
    maxTime,
    targetsReplaced,
  };
}
