import type { ExemplarBatchBuilder } from '../../record/exemplar-batch.js';
import type { AppendBatchBuilder } from '../../record/append-batch.js';
import { compareBytes, copyBytes } from '../../encoding/bytes.js';
import { describeLabels } from './describe-series.js';
import { malformedRequest } from '../../errors/errors.js';
import { ExemplarLabels } from './exemplar-labels.js';
import { RULE, violationText } from './label-rules.js';
import type { Rule, Violation } from './label-rules.js';
import { EXEMPLAR, checkMessage } from './message-shapes.js';
import { HistogramFields, validateHistogram } from '../../chunkenc/histogram/fields.js';
import type { HistogramBatchBuilder } from '../../record/histogram-batch.js';
import { readHistogram } from './histogram-reader.js';
import { invalidUtf8At } from '../../encoding/utf8.js';
import { WIRE, wrongWireType } from '../../encoding/wire-reader.js';
import type { WireReader } from '../../encoding/wire-reader.js';

// Tags (field << 3 | wire type) of the messages read here, compared as one
// number so that the common case is a single switch on the tag byte.
const TS_LABELS = (1 << 3) | WIRE.len;
const TS_SAMPLES = (2 << 3) | WIRE.len;
const TS_EXEMPLARS = (3 << 3) | WIRE.len;
const TS_HISTOGRAMS = (4 << 3) | WIRE.len;
const LABEL_NAME = (1 << 3) | WIRE.len;
const LABEL_VALUE = (2 << 3) | WIRE.len;
const SAMPLE_VALUE = (1 << 3) | WIRE.fixed64;
const SAMPLE_TIMESTAMP = (2 << 3) | WIRE.varint;
const EXEMPLAR_LABEL = (1 << 3) | WIRE.len;
const EXEMPLAR_VALUE = (2 << 3) | WIRE.fixed64;
const EXEMPLAR_TIMESTAMP = (3 << 3) | WIRE.varint;

/**
 * Reads prometheus.TimeSeries messages one after another into a
 * AppendBatchBuilder: canonical label bytes with the tenant label merged in,
 * i64 timestamps and f64 value bits, one entry per valid series that has
 * samples. Totals accumulate over the request.
 *
 * Shape: this runs for every label and every sample of every request, at
 * hundreds of thousands of series per second. So no objects are made per
 * series, label or sample: positions into the request are plain numbers,
 * bytes are copied by index straight from the request into the append
 * batch's columns (checking for non-ASCII on the way, so UTF-8 is validated only
 * where a high byte was seen), and strings are made only for the message
 * of the first refused series.
 *
 * Exemplars of a series with valid labels go to the exemplar batch: a
 * second walk over that series only (exemplars may come before its labels
 * on the wire), so series without exemplars cost nothing more.
 *
 * Native histograms go to the histogram batch (src/record/histogram-batch.ts):
 * each is read and checked as Prometheus checks it as it comes; one that fails is
 * left out and counted (the first named with its series), the others are
 * kept when the series' labels are valid, under a copy of its canonical
 * label bytes.
 *
 * The remote write 2.0 parser (parse-write-v2.ts) drives the same label,
 * sample, histogram and tenant code through begin(), putLabel(), sample(),
 * beginHistograms(), histogram(), keepHistograms() and putTenant(), and
 * reads the violation `v`.
 */
export class SeriesParser {
  /** Float samples written into the batch. */
  samples = 0;
  invalidSeries = 0;
  firstInvalid: string | undefined;
  /** Native histogram samples written into the histogram batch builder. */
  histogramSamples = 0;
  /** Native histograms refused by Prometheus' checks, in series with valid labels. */
  invalidHistograms = 0;
  firstInvalidHistogram: string | undefined;
  /** Exemplars in series with valid labels (put in the exemplar batch builder, or dropped: see exemplar()). */
  exemplars = 0;
  /** Entries written by series ref (knownSeries). */
  knownEntries = 0;
  /** Histogram entries written by series ref (knownSeries). */
  knownHistogramEntries = 0;

  /** The first rule the current series broke (RULE.ok while none). */
  readonly v: Violation = { rule: RULE.ok, label: 0, nameAt: 0, nameLen: 0, prevAt: 0, prevLen: 0, byteAt: 0 };
  // Label walk of the current series.
  private labelCount = 0;
  private prevAt = 0;
  private prevLen = 0;
  /** Whether the tenant label is in the current series' label bytes yet. */
  tenantDone = false;
  private readonly exemplarLabels = new ExemplarLabels();
  /** The tenant label in canonical form, `name 0xFF value 0xFF`. */
  private readonly tenantBytes: Uint8Array;
  private readonly tenantView: DataView;
  private readonly fields = new HistogramFields();
  // Histograms of the current series: where they start in the builder,
  // how many were read, and the first refused one.
  private histStart = 0;
  private histRead = 0;
  private histBad = 0;
  private histBadText: string | undefined;

  /**
   * @param tenantName - the tenant label's name, UTF-8, non-empty
   * @param tenantValue - the tenant, UTF-8, non-empty
   */
  constructor(
    private r: WireReader,
    readonly out: AppendBatchBuilder,
    private readonly tenantName: Uint8Array,
    tenantValue: Uint8Array,
    /** Where native histograms go. */
    readonly hs: HistogramBatchBuilder,
    /** Where exemplars go; none collected when absent. */
    readonly ex?: ExemplarBatchBuilder,
  ) {
    const t = new Uint8Array(tenantName.length + tenantValue.length + 2);
    t.set(tenantName);
    t[tenantName.length] = 0xff;
    t.set(tenantValue, tenantName.length + 1);
    t[t.length - 1] = 0xff;
    this.tenantBytes = t;
    this.tenantView = new DataView(t.buffer);
  }

  /** Reads on from `r` (OTLP's series come one by one, each encoded in a buffer of its own: otlp-batch.ts). */
  readFrom(r: WireReader): void {
    this.r = r;
  }

  /** Reads the TimeSeries at [r.pos, end), series `index` (from 0) of the request; leaves r.pos at end. */
  series(end: number, index: number): void {
    const r = this.r;
    const out = this.out;
    const start = r.pos;
    const labelsStart = out.l;
    const samplesStart = out.m;
    this.begin();
    this.beginHistograms();
    let exemplars = 0;
    while (r.pos < end) {
      const at = r.pos;
      const tag = r.tag(end);
      switch (tag) {
        case TS_SAMPLES:
          this.sample(r.len(end));
          break;
        case TS_LABELS:
          this.label(r.len(end));
          break;
        case TS_EXEMPLARS:
          checkMessage(r, r.len(end), EXEMPLAR);
          exemplars++;
          break;
        case TS_HISTOGRAMS:
          this.histogram(r.len(end));
          break;
        default:
          if (tag >>> 3 <= 4) throw wrongWireType(at, 'TimeSeries', tag >>> 3, tag & 7, WIRE.len);
          r.skip(tag & 7, end);
      }
    }
    if (this.labelCount === 0) this.refuse(RULE.noLabels, 0, 0, 0);
    if (this.v.rule !== RULE.ok) {
      out.l = labelsStart;
      out.m = samplesStart;
      this.dropHistograms();
      this.invalidSeries++;
      this.firstInvalid ??= `series ${index} ${describeLabels(r.buf, start, end)}: ${violationText(r.buf, this.v)}`;
      return;
    }
    this.exemplars += exemplars;
    if (!this.tenantDone) this.putTenant();
    const refused = this.keepHistograms(labelsStart);
    if (refused !== undefined) this.firstInvalidHistogram = `series ${index} ${describeLabels(r.buf, start, end)}: ${refused}`;
    // Prometheus sends a series' exemplars in a TimeSeries of their own,
    // without samples: they are taken before such a series is let go.
    if (exemplars > 0 && this.ex !== undefined) this.exemplarsOf(start, end, labelsStart, out.l - labelsStart);
    const count = out.m - samplesStart;
    if (count === 0) {
      // No entry: the head would create a series with no data.
      out.l = labelsStart;
      return;
    }
    out.addEntry(labelsStart, out.l - labelsStart, samplesStart, count);
    this.samples += count;
  }

  /**
   * Reads the samples and histograms of a TimeSeries whose labels the
   * series cache knows (series-keys.ts: they are its fields before `from`,
   * and it has no exemplars) as entries of series `ref` (one in each
   * batch that gets samples); [from, end) of the request, which holds the
   * TimeSeries at [start, end), series `index` (these two name it when a
   * histogram is refused). Leaves r.pos at end.
   */
  knownSeries(start: number, from: number, end: number, ref: number, index: number): void {
    const r = this.r;
    const out = this.out;
    const samplesStart = out.m;
    this.beginHistograms();
    r.pos = from;
    while (r.pos < end) {
      const tag = r.tag(end);
      if (tag === TS_SAMPLES) this.sample(r.len(end));
      else if (tag === TS_HISTOGRAMS) this.histogram(r.len(end));
      else r.skip(tag & 7, end);
    }
    const hs = this.hs;
    const histograms = hs.m - this.histStart;
    if (histograms > 0) {
      hs.addRefEntry(ref, this.histStart, histograms);
      this.histogramSamples += histograms;
      this.knownHistogramEntries++;
    }
    if (this.histBad > 0) {
      this.invalidHistograms += this.histBad;
      this.firstInvalidHistogram ??= `series ${index} ${describeLabels(r.buf, start, end)}: ${this.histBadText!}`;
    }
    const count = out.m - samplesStart;
    if (count === 0) return;
    out.addRefEntry(ref, samplesStart, count);
    this.samples += count;
    this.knownEntries++;
  }

  /**
   * One sample, its time and value bits as int32 halves (low first), of
   * series `ref`, which the series cache knew (OTLP's known points:
   * otlp-batch.ts): an entry of its own.
   */
  knownSample(ref: number, tLo: number, tHi: number, vLo: number, vHi: number): void {
    const out = this.out;
    if (out.m === out.sampleCapacity) out.growSamples();
    const at = out.m++;
    out.ts[2 * at] = tLo;
    out.ts[2 * at + 1] = tHi;
    out.vals[2 * at] = vLo;
    out.vals[2 * at + 1] = vHi;
    out.addRefEntry(ref, at, 1);
    this.samples++;
    this.knownEntries++;
  }

  /** The tenant label in canonical form, `name 0xFF value 0xFF`. */
  get tenantKey(): Uint8Array {
    return this.tenantBytes;
  }

  /** Starts a series: no label seen, no rule broken. */
  begin(): void {
    this.v.rule = RULE.ok;
    this.labelCount = 0;
    this.tenantDone = false;
  }

  /** Number of labels put since begin(). */
  get labels(): number {
    return this.labelCount;
  }

  /**
   * Takes the exemplars of the TimeSeries at [start, end) (already checked
   * well-formed by the first walk) into the exemplar batch builder, with the
   * series' canonical labels at [labelsAt, labelsAt + labelsLen) of the
   * append batch builder. Leaves r.pos at end.
   */
  private exemplarsOf(start: number, end: number, labelsAt: number, labelsLen: number): void {
    const r = this.r;
    const ex = this.ex!;
    const seriesOff = ex.putLabels(this.out.labels, labelsAt, labelsLen);
    r.pos = start;
    while (r.pos < end) {
      const tag = r.tag(end);
      if (tag === TS_EXEMPLARS) {
        const stop = r.len(end);
        this.exemplar(stop, seriesOff, labelsLen);
        r.pos = stop;
      } else {
        r.skip(tag & 7, end);
      }
    }
  }

  /** Reads one prometheus.Exemplar at [r.pos, stop) into the exemplar batch builder. */
  private exemplar(stop: number, seriesOff: number, seriesLen: number): void {
    const r = this.r;
    const labels = this.exemplarLabels;
    labels.reset();
    let tsLo = 0, tsHi = 0, vLo = 0, vHi = 0;
    while (r.pos < stop) {
      const tag = r.tag(stop);
      if (tag === EXEMPLAR_LABEL) {
        const labelEnd = r.len(stop);
        let nameAt = 0, nameLen = 0, valueAt = 0, valueLen = 0;
        while (r.pos < labelEnd) {
          const t = r.tag(labelEnd);
          if (t === LABEL_NAME || t === LABEL_VALUE) {
            const s = r.len(labelEnd);
            if (t === LABEL_NAME) {
              nameAt = r.pos;
              nameLen = s - r.pos;
            } else {
              valueAt = r.pos;
              valueLen = s - r.pos;
            }
            r.pos = s;
          } else {
            r.skip(t & 7, labelEnd);
          }
        }
        labels.push(nameAt, nameLen, valueAt, valueLen);
      } else if (tag === EXEMPLAR_VALUE) {
        vLo = r.view.getInt32(r.pos, true);
        vHi = r.view.getInt32(r.pos + 4, true);
        r.pos += 8;
      } else if (tag === EXEMPLAR_TIMESTAMP) {
        r.varint64(stop);
        tsLo = r.lo;
        tsHi = r.hi;
      } else {
        r.skip(tag & 7, stop);
      }
    }
    const ex = this.ex!;
    // A label that is not UTF-8: remote write 1.0 drops the exemplar, as
    // Prometheus and Thanos Receive drop exemplars they cannot take.
    if (!labels.write(r.buf, ex)) return;
    ex.add(tsLo, tsHi, vLo, vHi, seriesOff, seriesLen, labels.off, labels.len);
  }

  /** Starts the histograms of a series (before its first histogram is read). */
  beginHistograms(): void {
    this.histStart = this.hs.m;
    this.histRead = 0;
    this.histBad = 0;
    this.histBadText = undefined;
  }

  /** Histograms read since beginHistograms(), kept or refused. */
  get histogramsRead(): number {
    return this.histRead;
  }

  /**
   * Reads the Histogram at [r.pos, stop) and checks it: into the histogram
   * batch when Prometheus would take it, else counted as refused with
   * the reason. Leaves r.pos at stop.
   */
  histogram(stop: number): void {
    const h = this.fields;
    readHistogram(this.r, stop, h);
    const i = this.histRead++;
    const bad = validateHistogram(h);
    if (bad === undefined) {
      this.hs.addSample(h);
      return;
    }
    if (this.histBad++ === 0) this.histBadText = `histogram ${i} at ${h.t}: ${bad}`;
  }

  /**
   * Keeps the histograms read for the current series, whose labels are
   * valid and written (tenant merged in) at [labelsStart, out.l) of the
   * append batch builder: one histogram entry under a copy of those label bytes.
   * Refused ones are counted. Returns what was wrong with the series'
   * first refused histogram when the request names none yet (the caller
   * sets firstInvalidHistogram, naming the series), else undefined.
   */
  keepHistograms(labelsStart: number): string | undefined {
    const hs = this.hs;
    const count = hs.m - this.histStart;
    if (count > 0) {
      const len = this.out.l - labelsStart;
      const off = hs.putLabels(this.out.labels, labelsStart, len);
      hs.addEntry(off, len, this.histStart, count);
      this.histogramSamples += count;
    }
    if (this.histBad === 0) return undefined;
    this.invalidHistograms += this.histBad;
    return this.firstInvalidHistogram === undefined ? this.histBadText : undefined;
  }

  /** Forgets the histograms of the current series (its labels were refused). */
  dropHistograms(): void {
    this.hs.truncate(this.histStart);
  }

  /** Reads a Sample at [r.pos, stop) into the next row of the ts and vals columns. */
  sample(stop: number): void {
    const r = this.r;
    const out = this.out;
    if (out.m === out.sampleCapacity) out.growSamples();
    const w = out.m * 2;
    const ts = out.ts;
    const vals = out.vals;
    // Proto3 defaults, then whatever the message sets (the last one wins).
    ts[w] = 0;
    ts[w + 1] = 0;
    vals[w] = 0;
    vals[w + 1] = 0;
    // Fast path for the layout Prometheus and Thanos write, `09 <8 bytes>
    // 10 <varint>`: two byte compares instead of two tag reads. Whatever
    // follows it (nothing, normally) goes through the general loop, which
    // keeps the last-one-wins rule.
    const p = r.pos;
    const buf = r.buf;
    if (buf[p] === SAMPLE_VALUE && p + 11 <= stop && buf[p + 9] === SAMPLE_TIMESTAMP) {
      // The double's bits as two int32 words: never through a JS number,
      // which may quiet a signalling NaN such as the stale marker.
      vals[w] = r.view.getInt32(p + 1, true);
      vals[w + 1] = r.view.getInt32(p + 5, true);
      r.pos = p + 10;
      r.varint64(stop);
      ts[w] = r.lo;
      ts[w + 1] = r.hi;
    }
    while (r.pos < stop) {
      const at = r.pos;
      const tag = r.tag(stop);
      if (tag === SAMPLE_VALUE) {
        const v = r.pos;
        if (v + 8 > stop) throw malformedRequest(v, 'Sample value (double) runs past the end of its message');
        vals[w] = r.view.getInt32(v, true);
        vals[w + 1] = r.view.getInt32(v + 4, true);
        r.pos = v + 8;
      } else if (tag === SAMPLE_TIMESTAMP) {
        r.varint64(stop);
        ts[w] = r.lo;
        ts[w + 1] = r.hi;
      } else if (tag >>> 3 <= 2) {
        throw wrongWireType(at, 'Sample', tag >>> 3, tag & 7, tag >>> 3 === 1 ? WIRE.fixed64 : WIRE.varint);
      } else {
        r.skip(tag & 7, stop);
      }
    }
    out.m++;
  }

  /** Reads a Label at [r.pos, stop), checks it against the rules and writes it (tenant merged in). */
  private label(stop: number): void {
    const r = this.r;
    const buf = r.buf;
    let nameAt = 0;
    let nameLen = 0;
    let valueAt = 0;
    let valueLen = 0;
    // Fast path for the layout every encoder writes, `0a len name 12 len
    // value` with one-byte lengths (names and values under 128 bytes):
    // four byte compares instead of two tag and two length reads.
    // Anything else (long strings, reordered or repeated or unknown fields)
    // takes the general loop below, which reads from the start again.
    const p = r.pos;
    if (buf[p] === LABEL_NAME && p + 4 <= stop) {
      const nl = buf[p + 1]!;
      const q = p + 2 + nl;
      if (nl < 0x80 && q + 2 <= stop && buf[q] === LABEL_VALUE) {
        const vl = buf[q + 1]!;
        if (vl < 0x80 && q + 2 + vl === stop) {
          nameAt = p + 2;
          nameLen = nl;
          valueAt = q + 2;
          valueLen = vl;
          r.pos = stop;
        }
      }
    }
    while (r.pos < stop) {
      const at = r.pos;
      const tag = r.tag(stop);
      if (tag === LABEL_NAME || tag === LABEL_VALUE) {
        const s = r.len(stop);
        if (tag === LABEL_NAME) {
          nameAt = r.pos;
          nameLen = s - r.pos;
        } else {
          valueAt = r.pos;
          valueLen = s - r.pos;
        }
        r.pos = s;
      } else if (tag >>> 3 <= 2) {
        throw wrongWireType(at, 'Label', tag >>> 3, tag & 7, WIRE.len);
      } else {
        r.skip(tag & 7, stop);
      }
    }
    this.putLabel(nameAt, nameLen, valueAt, valueLen);
  }

  /**
   * Checks the label whose name and value are at these positions of the
   * request against the rules and writes it (tenant merged in). The next
   * label of the series in wire order.
   */
  putLabel(nameAt: number, nameLen: number, valueAt: number, valueLen: number): void {
    const r = this.r;
    const buf = r.buf;
    const i = this.labelCount++;
    if (this.v.rule !== RULE.ok) return; // already refused: keep reading, stop checking
    // Thanos' order: empty name or value, then duplicate, then order.
    if (nameLen === 0) return this.refuse(RULE.emptyName, i, nameAt, 0);
    if (valueLen === 0) return this.refuse(RULE.emptyValue, i, nameAt, nameLen);
    if (i > 0) {
      const c = compareBytes(buf, this.prevAt, this.prevLen, buf, nameAt, nameLen);
      if (c === 0) return this.refuse(RULE.duplicateName, i, nameAt, nameLen);
      if (c > 0) return this.refuse(RULE.unsorted, i, nameAt, nameLen);
    }
    this.prevAt = nameAt;
    this.prevLen = nameLen;
    let keep = true;
    if (!this.tenantDone) {
      const t = this.tenantName;
      const c = compareBytes(buf, nameAt, nameLen, t, 0, t.length);
      if (c >= 0) {
        this.putTenant();
        // A written label of the tenant label's name loses to the tenant:
        // still checked (UTF-8), not kept.
        keep = c !== 0;
      }
    }
    const out = this.out;
    out.reserveLabels(nameLen + valueLen + 2);
    const labels = out.labels;
    const labelView = out.labelView;
    let o = out.l;
    if (copyBytes(buf, r.view, nameAt, nameLen, labels, labelView, o)) {
      const bad = invalidUtf8At(buf, nameAt, nameAt + nameLen);
      if (bad >= 0) return this.refuse(RULE.nameNotUtf8, i, nameAt, nameLen, bad);
    }
    o += nameLen;
    labels[o++] = 0xff;
    if (copyBytes(buf, r.view, valueAt, valueLen, labels, labelView, o)) {
      const bad = invalidUtf8At(buf, valueAt, valueAt + valueLen);
      if (bad >= 0) return this.refuse(RULE.valueNotUtf8, i, nameAt, nameLen, bad);
    }
    o += valueLen;
    labels[o++] = 0xff;
    if (keep) out.l = o;
  }

  /** Writes the tenant label at the current position of the label column. */
  putTenant(): void {
    const out = this.out;
    const t = this.tenantBytes;
    out.reserveLabels(t.length);
    copyBytes(t, this.tenantView, 0, t.length, out.labels, out.labelView, out.l);
    out.l += t.length;
    this.tenantDone = true;
  }

  /** Records the first rule the current series broke (numbers only; text later, if needed). */
  refuse(rule: Rule, label: number, nameAt: number, nameLen: number, byteAt = 0): void {
    const v = this.v;
    if (v.rule !== RULE.ok) return;
    v.rule = rule;
    v.label = label;
    v.nameAt = nameAt;
    v.nameLen = nameLen;
    v.prevAt = this.prevAt;
    v.prevLen = this.prevLen;
    v.byteAt = byteAt;
  }
}
