/**
 * One request parsed into this thread's batch builders
 * (record/request-builders.ts): the series parser over them, the keys the
 * series cache may learn, and the ParsedWrite they make. parse-write.ts
 * (remote write 1.0 and Thanos' message) and otlp-batch.ts (OTLP) drive it.
 */
import type { MetricMetadataEntry } from '../../metadata/metric-metadata.js';
import type { HeadWasm } from '../../wasm/head.js';
import type { WireReader } from '../../encoding/wire-reader.js';
import { allocateBatch, releaseRequestBuilders, takeRequestBuilders, type RequestBuilders } from '../../record/request-builders.js';
import type { ParsedWrite } from './parsed-write.js';
import { SeriesParser } from './series-parser.js';

/**
 * Int32 words of one record of ParsedWrite.keys: the entry, then its four
 * key words. The entry is the append batch's, or for a series with no
 * float samples ~entry (negative) of the histogram batch.
 */
export const KEY_RECORD_WORDS = 5;

let keyScratch = new Int32Array(KEY_RECORD_WORDS * 1024);
const encoder = new TextEncoder();

/** What the request said beside its series. */
export interface RequestFacts {
  tenant: string;
  replica: number;
  /** TimeSeries in the request (or series made from it), valid or not. */
  series: number;
  metadata?: MetricMetadataEntry[];
}

export class BatchParse {
  readonly builders: RequestBuilders;
  readonly parser: SeriesParser;
  private learned = 0;
  private released = false;

  /** Takes the thread's builders: release() gives them back, whatever happens. */
  constructor(wasm: HeadWasm, r: WireReader, tenantLabel: string, tenant: string) {
    const b = takeRequestBuilders(wasm);
    this.builders = b;
    this.parser = new SeriesParser(r, b.samples, encoder.encode(tenantLabel), encoder.encode(tenant), b.histograms, b.exemplars);
  }

  /**
   * Notes that entry `entry` of the batch (given by labels) is the series
   * of a key: its four int32 words go to `keyWords` from the index returned.
   */
  learn(entry: number): number {
    const at = this.learned * KEY_RECORD_WORDS;
    if (at + KEY_RECORD_WORDS > keyScratch.length) {
      const next = new Int32Array(keyScratch.length * 2);
      next.set(keyScratch);
      keyScratch = next;
    }
    keyScratch[at] = entry;
    this.learned++;
    return at + 1;
  }

  /** As learn() for entry `entry` of the histogram batch (a series with histograms and no float samples). */
  learnHistogram(entry: number): number {
    return this.learn(~entry);
  }

  /** Where learn() says the key words go (valid until the next learn()). */
  get keyWords(): Int32Array {
    return keyScratch;
  }

  /**
   * The request's answer: its batches (the caller owns them) and counts.
   * The float batch goes into `spare`, the histogram batch into
   * `histogramSpare`, each when large enough.
   */
  finish(spare: ArrayBuffer | undefined, facts: RequestFacts, histogramSpare?: ArrayBuffer): ParsedWrite {
    const { samples, histograms, exemplars } = this.builders;
    const p = this.parser;
    const parsed: ParsedWrite = {
      batch: samples.finish(spare, allocateBatch),
      tenant: facts.tenant,
      replica: facts.replica,
      series: facts.series,
      samples: p.samples,
      invalidSeries: p.invalidSeries,
      histogramSamples: p.histogramSamples,
      invalidHistograms: p.invalidHistograms,
      exemplars: p.exemplars,
      emptySeries: 0,
      invalidExemplars: 0,
      refEntries: p.knownEntries,
      histogramRefEntries: p.knownHistogramEntries,
    };
    if (histograms.n > 0) parsed.histogramBatch = histograms.finish(histogramSpare, allocateBatch);
    const exemplarBatch = exemplars.finish();
    if (exemplarBatch !== undefined) parsed.exemplarBatch = exemplarBatch;
    if (this.learned > 0) parsed.keys = keyScratch.slice(0, this.learned * KEY_RECORD_WORDS).buffer;
    if (p.firstInvalid !== undefined) parsed.firstInvalid = p.firstInvalid;
    if (p.firstInvalidHistogram !== undefined) parsed.firstInvalidHistogram = p.firstInvalidHistogram;
    if (facts.metadata !== undefined) parsed.metadata = facts.metadata;
    return parsed;
  }

  /** Gives the builders back for the next request (malformed ones too). */
  release(): void {
    if (this.released) return;
    this.released = true;
    releaseRequestBuilders(this.builders);
  }
}
