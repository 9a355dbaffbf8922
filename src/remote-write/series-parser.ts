import type { BatchScratch } from './batch-scratch.js';
import { copyBytes } from './copy-bytes.js';
import { describeLabels } from './describe-series.js';
import { malformedRequest } from './errors.js';
import { RULE, violationText } from './label-rules.js';
import type { Rule, Violation } from './label-rules.js';
import { EXEMPLAR, HISTOGRAM, checkMessage } from './message-shapes.js';
import { invalidUtf8At } from './utf8.js';
import { WIRE, wrongWireType } from './wire-reader.js';
import type { WireReader } from './wire-reader.js';

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

/** Byte-wise comparison, as Go compares strings: <0, 0 or >0. */
function compareBytes(a: Uint8Array, aAt: number, aLen: number, b: Uint8Array, bAt: number, bLen: number): number {
  const n = aLen < bLen ? aLen : bLen;
  for (let k = 0; k < n; k++) {
    const d = a[aAt + k]! - b[bAt + k]!;
    if (d !== 0) return d;
  }
  return aLen - bLen;
}

/**
 * Reads prometheus.TimeSeries messages one after another into a
 * BatchScratch: canonical label bytes with the tenant label merged in,
 * i64 timestamps and f64 value bits, one entry per valid series that has
 * samples. Totals accumulate over the request.
 *
 * Shape: this runs for every label and every sample of every request, at
 * hundreds of thousands of series per second. So no objects are made per
 * series, label or sample: positions into the request are plain numbers,
 * bytes are copied by index straight from the request into the scratch
 * columns (checking for non-ASCII on the way, so UTF-8 is validated only
 * where a high byte was seen), and strings are made only for the message
 * of the first refused series.
 */
export class SeriesParser {
  /** Float samples written into the batch. */
  samples = 0;
  invalidSeries = 0;
  firstInvalid: string | undefined;
  histogramSamples = 0;
  firstHistogram: string | undefined;
  exemplars = 0;

  private readonly v: Violation = { rule: RULE.ok, label: 0, nameAt: 0, nameLen: 0, prevAt: 0, prevLen: 0, byteAt: 0 };
  // Label walk of the current series.
  private labelCount = 0;
  private prevAt = 0;
  private prevLen = 0;
  private tenantDone = false;
  /** The tenant label in canonical form, `name 0xFF value 0xFF`. */
  private readonly tenantBytes: Uint8Array;
  private readonly tenantView: DataView;

  /**
   * @param tenantName - the tenant label's name, UTF-8, non-empty
   * @param tenantValue - the tenant, UTF-8, non-empty
   */
  constructor(
    private readonly r: WireReader,
    private readonly out: BatchScratch,
    private readonly tenantName: Uint8Array,
    tenantValue: Uint8Array,
  ) {
    const t = new Uint8Array(tenantName.length + tenantValue.length + 2);
    t.set(tenantName);
    t[tenantName.length] = 0xff;
    t.set(tenantValue, tenantName.length + 1);
    t[t.length - 1] = 0xff;
    this.tenantBytes = t;
    this.tenantView = new DataView(t.buffer);
  }

  /** Reads the TimeSeries at [r.pos, end), series `index` (from 0) of the request; leaves r.pos at end. */
  series(end: number, index: number): void {
    const r = this.r;
    const out = this.out;
    const start = r.pos;
    const labelsStart = out.l;
    const samplesStart = out.m;
    this.v.rule = RULE.ok;
    this.labelCount = 0;
    this.tenantDone = false;
    let histograms = 0;
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
          checkMessage(r, r.len(end), HISTOGRAM);
          histograms++;
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
      this.invalidSeries++;
      this.firstInvalid ??= `series ${index} ${describeLabels(r.buf, start, end)}: ${violationText(r.buf, this.v)}`;
      return;
    }
    this.exemplars += exemplars;
    if (histograms > 0) {
      this.histogramSamples += histograms;
      this.firstHistogram ??= `series ${index} ${describeLabels(r.buf, start, end)}`;
    }
    const count = out.m - samplesStart;
    if (count === 0) {
      // No entry: the head would create a series with no data.
      out.l = labelsStart;
      return;
    }
    if (!this.tenantDone) this.putTenant();
    out.addEntry(labelsStart, out.l - labelsStart, samplesStart, count);
    this.samples += count;
  }

  /** Reads a Sample at [r.pos, stop) into the next row of the ts and vals columns. */
  private sample(stop: number): void {
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
  private putTenant(): void {
    const out = this.out;
    const t = this.tenantBytes;
    out.reserveLabels(t.length);
    copyBytes(t, this.tenantView, 0, t.length, out.labels, out.labelView, out.l);
    out.l += t.length;
    this.tenantDone = true;
  }

  /** Records the first rule the current series broke (numbers only; text later, if needed). */
  private refuse(rule: Rule, label: number, nameAt: number, nameLen: number, byteAt = 0): void {
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
