/**
 * Histogram batches from histogram objects (histogram-batch.ts has the format).
 */
import type { FloatHistogram, Histogram } from '../chunkenc/histogram/types.js';
import type { HeadWasm } from '../wasm/head.js';
import { invalidLabels } from '../errors/write-errors.js';
import { fieldsOf } from './histogram-body.js';
import { HistogramFields, validateHistogram } from '../chunkenc/histogram/fields.js';
import { HistogramScratch } from './histogram-scratch.js';

/** A histogram the builder was given that Prometheus would refuse. */
export class InvalidHistogramError extends Error {
  readonly kind = 'invalid-histogram';
  override name = 'InvalidHistogramError';
}

const encoder = new TextEncoder();

/**
 * Builds a histogram batch series by series from histogram objects (the
 * library path, and tests; remote write builds batches in the parser).
 * Label sets must be valid as for AppendBatchBuilder; a tenant label, when
 * given, is merged in and wins over one of the same name.
 *
 * @example
 * const b = new HistogramBatchBuilder(wasm);
 * b.add(['__name__', 'rpc_seconds'], [1000], [histogram]);
 * db.appendHistograms(b.finish());
 */
export class HistogramBatchBuilder {
  private readonly scratch = new HistogramScratch();
  private readonly fields = new HistogramFields();

  constructor(private readonly wasm: HeadWasm, private readonly tenant?: readonly [string, string]) {}

  /**
   * Adds a series' samples: times (ms) and histograms, integer ones unless
   * `float`. Checks each as Prometheus does.
   *
   * @throws InvalidHistogramError naming the sample and what is wrong.
   */
  add(labels: readonly string[], times: readonly number[], histograms: readonly (Histogram | FloatHistogram)[], float = false): void {
    if (times.length !== histograms.length) throw new RangeError(`${times.length} times but ${histograms.length} histograms`);
    checkLabels(labels);
    const s = this.scratch;
    const first = s.m;
    for (let i = 0; i < times.length; i++) {
      fieldsOf(histograms[i]!, float, times[i]!, this.fields);
      const bad = validateHistogram(this.fields);
      if (bad !== undefined) {
        s.m = first;
        throw new InvalidHistogramError(`histogram ${i} at ${times[i]}: ${bad}`);
      }
      s.addSample(this.fields);
    }
    const off = s.l;
    const t = this.tenant;
    let tenantDone = t === undefined;
    for (let i = 0; i < labels.length; i += 2) {
      const name = labels[i]!;
      if (!tenantDone && name >= t![0]) {
        this.putLabel(t![0], t![1]);
        tenantDone = true;
        if (name === t![0]) continue;
      }
      this.putLabel(name, labels[i + 1]!);
    }
    if (!tenantDone) this.putLabel(t![0], t![1]);
    s.addEntry(off, s.l - off, first, s.m - first);
  }

  get sampleCount(): number {
    return this.scratch.m;
  }

  /** The batch, hashes filled; the builder is empty again. */
  finish(): ArrayBuffer {
    const out = this.scratch.finish(this.wasm);
    this.scratch.reset();
    return out;
  }

  private putLabel(name: string, value: string): void {
    const s = this.scratch;
    s.reserveLabels((name.length + value.length) * 3 + 2);
    s.l += encoder.encodeInto(name, s.labels.subarray(s.l)).written;
    s.labels[s.l++] = 0xff;
    s.l += encoder.encodeInto(value, s.labels.subarray(s.l)).written;
    s.labels[s.l++] = 0xff;
  }
}

function checkLabels(labels: readonly string[]): void {
  if (labels.length === 0 || labels.length % 2 !== 0) throw invalidLabels('a label set needs at least one label and a value for every name');
  for (let i = 0; i < labels.length; i += 2) {
    if (labels[i] === '' || labels[i + 1] === '') throw invalidLabels(`empty name or value in label ${i / 2}`);
    if (i > 0 && labels[i - 2]! >= labels[i]!) throw invalidLabels(`label names not sorted or not unique at ${JSON.stringify(labels[i])}`);
  }
}
