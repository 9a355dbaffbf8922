/**
 * Remote write 2.0: io.prometheus.write.v2.Request (proto/prometheus/write/v2/types.proto)
 * straight into the same append batch as 1.0 (parse-write.ts), through the
 * same label rules and sample code (series-parser.ts). Strings are interned
 * in the request's symbols table; series, exemplars and metadata name them
 * by index. The symbols are located once (positions only, no strings); a
 * label's bytes are copied from its symbol into the batch as 1.0 copies
 * them from its Label message.
 */
import type { ExemplarBatchBuilder } from '../../record/exemplar-batch.js';
import type { HeadWasm } from '../../wasm/head.js';
import { metricTypeName, type MetricMetadataEntry } from '../../metadata/metric-metadata.js';
import { allocateBatch, releaseRequestBuilders, takeRequestBuilders } from '../../record/request-builders.js';
import { bytesText, MAX_CHARS } from './describe-series.js';
import { malformedRequest } from '../../errors/errors.js';
import { ExemplarLabels } from './exemplar-labels.js';
import { RULE, violationText } from './label-rules.js';
import { EXEMPLAR_V2, METADATA_V2, checkMessage } from './message-shapes.js';
import { DEFAULT_TENANT, type ParsedWrite, type ParseWriteOptions } from './parsed-write.js';
import { SeriesParser } from './series-parser.js';
import { WIRE, WireReader, wrongWireType } from '../../encoding/wire-reader.js';

const SYMBOLS = (4 << 3) | WIRE.len;
const TIMESERIES = (5 << 3) | WIRE.len;
const TS_LABELS_PACKED = (1 << 3) | WIRE.len;
const TS_LABELS_ONE = (1 << 3) | WIRE.varint;
const TS_SAMPLES = (2 << 3) | WIRE.len;
const TS_HISTOGRAMS = (3 << 3) | WIRE.len;
const TS_EXEMPLARS = (4 << 3) | WIRE.len;
const TS_METADATA = (5 << 3) | WIRE.len;
const EX_LABELS_PACKED = (1 << 3) | WIRE.len;
const EX_LABELS_ONE = (1 << 3) | WIRE.varint;
const EX_VALUE = (2 << 3) | WIRE.fixed64;
const EX_TIMESTAMP = (3 << 3) | WIRE.varint;
const MD_TYPE = (1 << 3) | WIRE.varint;
const MD_HELP = (3 << 3) | WIRE.varint;
const MD_UNIT = (4 << 3) | WIRE.varint;

const encoder = new TextEncoder();
const NAME_LABEL = encoder.encode('__name__');

/** A growable list of uint32 (symbol positions, label references). */
class U32List {
  a = new Uint32Array(64);
  n = 0;

  push(v: number): void {
    if (this.n === this.a.length) {
      const next = new Uint32Array(this.a.length * 2);
      next.set(this.a);
      this.a = next;
    }
    this.a[this.n++] = v;
  }
}

/**
 * Parses a remote write 2.0 request; see parseWriteRequest (parse-write.ts)
 * for what it answers. Per series, as the specification and Prometheus'
 * own receiver have it: labels_refs must be even in length and point into
 * the symbols table, and the labels then follow 1.0's rules (non-empty,
 * unique, sorted, UTF-8), else the series is refused (invalidSeries), as
 * one whose metadata references lie outside the table; a series with
 * neither samples nor histograms is refused (emptySeries); native
 * histograms are read and checked as in 1.0 (their start_timestamp is
 * read and not stored); an exemplar whose references are
 * invalid is refused (invalidExemplars). What is valid is still written.
 * Start timestamps (created timestamps) are read and not stored, as
 * Prometheus does by default.
 *
 * @throws MalformedRequestError when the bytes are not a valid message, or
 *   the symbols table does not start with the empty string.
 */
export function parseWriteRequestV2(bytes: Uint8Array, opts: ParseWriteOptions & { tenantLabel: string }, wasm: HeadWasm): ParsedWrite {
  const r = new WireReader(bytes);
  const end = bytes.length;
  // First walk: locate the symbols (they may come after the series) and count the series.
  const symbols = new U32List();
  let series = 0;
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    if (tag === SYMBOLS) {
      const stop = r.len(end);
      symbols.push(r.pos);
      symbols.push(stop - r.pos);
      r.pos = stop;
    } else if (tag === TIMESERIES) {
      r.pos = r.len(end);
      series++;
    } else if (tag >>> 3 === 4 || tag >>> 3 === 5) {
      throw wrongWireType(at, 'Request', tag >>> 3, tag & 7, WIRE.len);
    } else {
      // Fields 1 to 3 are reserved: a 1.0 WriteRequest read as 2.0 is an empty message, as the specification intends.
      r.skip(tag & 7, end);
    }
  }
  if (symbols.n > 0 && symbols.a[1] !== 0) throw malformedRequest(symbols.a[0]!, 'symbols[0] must be the empty string');
  const tenant = opts.tenant === undefined || opts.tenant === '' ? opts.defaultTenant ?? DEFAULT_TENANT : opts.tenant;

  const builders = takeRequestBuilders(wasm);
  const { samples, histograms, exemplars } = builders;
  try {
    const parser = new SeriesParser(r, samples, encoder.encode(opts.tenantLabel), encoder.encode(tenant), histograms, exemplars);
    const v2 = new SeriesV2(r, parser, symbols, exemplars);
    r.pos = 0;
    let index = 0;
    while (r.pos < end) {
      const tag = r.tag(end);
      if (tag === TIMESERIES) {
        const stop = r.len(end);
        v2.series(stop, index++);
        r.pos = stop;
      } else {
        r.skip(tag & 7, end);
      }
    }
    const parsed: ParsedWrite = {
      batch: samples.finish(undefined, allocateBatch),
      tenant,
      replica: 0,
      series,
      samples: parser.samples,
      invalidSeries: v2.invalidSeries,
      histogramSamples: parser.histogramSamples,
      invalidHistograms: parser.invalidHistograms,
      exemplars: v2.exemplars,
      emptySeries: v2.emptySeries,
      invalidExemplars: v2.invalidExemplars,
      refEntries: 0,
      histogramRefEntries: 0,
    };
    const exemplarBatch = exemplars.finish();
    if (exemplarBatch !== undefined) parsed.exemplarBatch = exemplarBatch;
    const metadata = v2.metadata();
    if (metadata.length > 0) parsed.metadata = metadata;
    if (v2.firstInvalid !== undefined) parsed.firstInvalid = v2.firstInvalid;
    if (histograms.n > 0) parsed.histogramBatch = histograms.finish();
    if (parser.firstInvalidHistogram !== undefined) parsed.firstInvalidHistogram = parser.firstInvalidHistogram;
    if (v2.firstEmpty !== undefined) parsed.firstEmpty = v2.firstEmpty;
    if (v2.firstInvalidExemplar !== undefined) parsed.firstInvalidExemplar = v2.firstInvalidExemplar;
    return parsed;
  } finally {
    // Malformed requests too: a stream of them must not allocate builders each time.
    releaseRequestBuilders(builders);
  }
}

/**
 * Reads 2.0 TimeSeries messages one after another. Shape: as 1.0's
 * parser, no object per series or sample; a series' label references go
 * into a reused list, and metadata is kept per family name symbol (a
 * number), so strings are made once per family, at the end.
 */
class SeriesV2 {
  invalidSeries = 0;
  firstInvalid: string | undefined;
  exemplars = 0;
  invalidExemplars = 0;
  firstInvalidExemplar: string | undefined;
  emptySeries = 0;
  firstEmpty: string | undefined;

  private readonly refs = new U32List();
  private readonly exRefs = new U32List();
  private readonly exemplarLabels = new ExemplarLabels();
  /** Metadata by the family name's symbol: [type, help ref, unit ref]; the last series of a family wins. */
  private readonly families = new Map<number, [number, number, number]>();
  private readonly symbolCount: number;

  constructor(
    private readonly r: WireReader,
    private readonly parser: SeriesParser,
    /** Pairs (position, length) of the symbols in the request. */
    private readonly symbols: U32List,
    private readonly ex: ExemplarBatchBuilder,
  ) {
    this.symbolCount = symbols.n / 2;
  }

  /** Reads the TimeSeries at [r.pos, end), series `index` (from 0) of the request; leaves r.pos at end. */
  series(end: number, index: number): void {
    const r = this.r;
    const parser = this.parser;
    const out = parser.out;
    const start = r.pos;
    const labelsStart = out.l;
    const samplesStart = out.m;
    const refs = this.refs;
    refs.n = 0;
    parser.beginHistograms();
    let exemplars = 0;
    let mdType = 0, mdHelp = 0, mdUnit = 0;
    while (r.pos < end) {
      const at = r.pos;
      const tag = r.tag(end);
      switch (tag) {
        case TS_SAMPLES:
          parser.sample(r.len(end));
          break;
        case TS_LABELS_PACKED: {
          const stop = r.len(end);
          const buf = r.buf;
          while (r.pos < stop) {
            // References below 128 (the commonest symbols come first) are one byte.
            const b = buf[r.pos]!;
            if (b < 0x80) {
              refs.push(b);
              r.pos++;
            } else {
              refs.push(r.uint32(stop, 'labels_refs element'));
            }
          }
          break;
        }
        case TS_LABELS_ONE:
          refs.push(r.uint32(end, 'labels_refs element'));
          break;
        case TS_EXEMPLARS:
          checkMessage(r, r.len(end), EXEMPLAR_V2);
          exemplars++;
          break;
        case TS_HISTOGRAMS:
          parser.histogram(r.len(end));
          break;
        case TS_METADATA: {
          // A message field given twice merges: each field read takes the last value.
          const stop = r.len(end);
          const mdStart = r.pos;
          checkMessage(r, stop, METADATA_V2);
          r.pos = mdStart;
          while (r.pos < stop) {
            const t = r.tag(stop);
            if (t === MD_TYPE) mdType = r.int64Number(stop);
            else if (t === MD_HELP) mdHelp = r.int64Number(stop);
            else if (t === MD_UNIT) mdUnit = r.int64Number(stop);
            else r.skip(t & 7, stop);
          }
          break;
        }
        default:
          if (tag >>> 3 <= 5) throw wrongWireType(at, 'TimeSeries', tag >>> 3, tag & 7, tag >>> 3 === 1 ? WIRE.varint : WIRE.len);
          // Field 6 (reserved; rc.3's created_timestamp) and unknown fields.
          r.skip(tag & 7, end);
      }
    }

    // Labels: references resolved to symbols, then 1.0's rules.
    parser.begin();
    const bad = this.refsProblem(refs, 'labels_refs');
    if (bad !== undefined) {
      this.refuse(labelsStart, samplesStart, `series ${index} (labels_refs ${this.refsText(refs)}): ${bad}`);
      return;
    }
    const sym = this.symbols.a;
    let nameSymbol = -1;
    for (let i = 0; i < refs.n; i += 2) {
      const n = refs.a[i]!;
      const v = refs.a[i + 1]!;
      parser.putLabel(sym[2 * n]!, sym[2 * n + 1]!, sym[2 * v]!, sym[2 * v + 1]!);
      if (nameSymbol < 0 && this.isName(n)) nameSymbol = v;
    }
    if (parser.labels === 0) parser.refuse(RULE.noLabels, 0, 0, 0);
    if (parser.v.rule !== RULE.ok) {
      this.refuse(labelsStart, samplesStart, `series ${index} ${this.describe(refs)}: ${violationText(r.buf, parser.v)}`);
      return;
    }
    if (mdHelp >= this.symbolCount || mdUnit >= this.symbolCount) {
      const which = mdHelp >= this.symbolCount ? `help_ref ${mdHelp}` : `unit_ref ${mdUnit}`;
      this.refuse(labelsStart, samplesStart, `series ${index} ${this.describe(refs)}: metadata ${which} outside the symbols table (size ${this.symbolCount})`);
      return;
    }
    const count = out.m - samplesStart;
    if (count === 0 && parser.histogramsRead === 0) {
      out.l = labelsStart;
      this.emptySeries++;
      this.firstEmpty ??= `series ${index} ${this.describe(refs)}: neither samples nor histograms`;
      return;
    }
    if (!parser.tenantDone) parser.putTenant();
    const refused = parser.keepHistograms(labelsStart);
    if (refused !== undefined) parser.firstInvalidHistogram = `series ${index} ${this.describe(refs)}: ${refused}`;
    if (exemplars > 0) {
      this.exemplars += exemplars;
      this.exemplarsOf(start, end, index, refs, labelsStart, out.l - labelsStart);
    }
    // Metadata with nothing in it says nothing: it does not overwrite what a family is known by.
    if (nameSymbol >= 0 && (mdType !== 0 || this.symbolLen(mdHelp) > 0 || this.symbolLen(mdUnit) > 0)) {
      this.families.delete(nameSymbol); // re-inserted last: the order families were last seen in
      this.families.set(nameSymbol, [mdType, mdHelp, mdUnit]);
    }
    if (count === 0) {
      out.l = labelsStart;
      return;
    }
    out.addEntry(labelsStart, out.l - labelsStart, samplesStart, count);
    parser.samples += count;
  }

  /** The metadata of the families seen, in the order they were last given. */
  metadata(): MetricMetadataEntry[] {
    const out: MetricMetadataEntry[] = [];
    for (const [name, [type, help, unit]] of this.families) {
      out.push({ family: this.symbolText(name), type: metricTypeName(type), help: this.symbolText(help), unit: this.symbolText(unit) });
    }
    return out;
  }

  /** Forgets the current series' labels and samples and counts it refused. */
  private refuse(labelsStart: number, samplesStart: number, message: string): void {
    const out = this.parser.out;
    out.l = labelsStart;
    out.m = samplesStart;
    this.parser.dropHistograms();
    this.invalidSeries++;
    this.firstInvalid ??= message;
  }

  /** What is wrong with a list of name/value references, or undefined. */
  private refsProblem(refs: U32List, what: string): string | undefined {
    if (refs.n % 2 !== 0) return `${what} has an odd length (${refs.n})`;
    for (let i = 0; i < refs.n; i++) {
      if (refs.a[i]! >= this.symbolCount) return `${what} element ${refs.a[i]} is outside the symbols table (size ${this.symbolCount})`;
    }
    return undefined;
  }

  /**
   * Takes the exemplars of the TimeSeries at [start, end) into the
   * exemplar samples, with the series' canonical labels at
   * [labelsAt, labelsAt + labelsLen) of the batch samples.
   */
  private exemplarsOf(start: number, end: number, index: number, seriesRefs: U32List, labelsAt: number, labelsLen: number): void {
    const r = this.r;
    const ex = this.ex;
    const seriesOff = ex.putLabels(this.parser.out.labels, labelsAt, labelsLen);
    const refs = this.exRefs;
    const labels = this.exemplarLabels;
    const sym = this.symbols.a;
    r.pos = start;
    while (r.pos < end) {
      const tag = r.tag(end);
      if (tag !== TS_EXEMPLARS) {
        r.skip(tag & 7, end);
        continue;
      }
      const stop = r.len(end);
      refs.n = 0;
      let tsLo = 0, tsHi = 0, vLo = 0, vHi = 0;
      while (r.pos < stop) {
        const t = r.tag(stop);
        if (t === EX_LABELS_PACKED) {
          const s = r.len(stop);
          while (r.pos < s) refs.push(r.uint32(s, 'labels_refs element'));
        } else if (t === EX_LABELS_ONE) {
          refs.push(r.uint32(stop, 'labels_refs element'));
        } else if (t === EX_VALUE) {
          vLo = r.view.getInt32(r.pos, true);
          vHi = r.view.getInt32(r.pos + 4, true);
          r.pos += 8;
        } else if (t === EX_TIMESTAMP) {
          r.varint64(stop);
          tsLo = r.lo;
          tsHi = r.hi;
        } else {
          r.skip(t & 7, stop);
        }
      }
      const bad = this.refsProblem(refs, 'exemplar labels_refs');
      labels.reset();
      if (bad === undefined) for (let i = 0; i < refs.n; i += 2) {
        const n = refs.a[i]!;
        const v = refs.a[i + 1]!;
        labels.push(sym[2 * n]!, sym[2 * n + 1]!, sym[2 * v]!, sym[2 * v + 1]!);
      }
      if (bad !== undefined || !labels.write(r.buf, ex)) {
        this.invalidExemplars++;
        const why = bad ?? `a label is not valid UTF-8 (byte 0x${r.buf[labels.badByteAt]!.toString(16).padStart(2, '0')} at offset ${labels.badByteAt} of the request)`;
        this.firstInvalidExemplar ??= `series ${index} ${this.describe(seriesRefs)}: ${why}`;
        continue;
      }
      ex.add(tsLo, tsHi, vLo, vHi, seriesOff, labelsLen, labels.off, labels.len);
    }
  }

  /** Whether symbol `i` is `__name__`. */
  private isName(i: number): boolean {
    const sym = this.symbols.a;
    const at = sym[2 * i]!;
    if (sym[2 * i + 1] !== NAME_LABEL.length) return false;
    const buf = this.r.buf;
    for (let k = 0; k < NAME_LABEL.length; k++) if (buf[at + k] !== NAME_LABEL[k]) return false;
    return true;
  }

  private symbolLen(i: number): number {
    return this.symbols.a[2 * i + 1]!;
  }

  private symbolText(i: number): string {
    return bytesText(this.r.buf, this.symbols.a[2 * i]!, this.symbols.a[2 * i + 1]!);
  }

  private refsText(refs: U32List): string {
    const shown = Array.from(refs.a.subarray(0, Math.min(refs.n, 32)));
    return `[${shown.join(', ')}${refs.n > 32 ? ', …' : ''}]`;
  }

  /** A series' labels as written, e.g. `{__name__="up", job="node"}` (for messages; references known valid). */
  private describe(refs: U32List): string {
    const parts: string[] = [];
    let chars = 0;
    for (let i = 0; i + 1 < refs.n && chars <= MAX_CHARS; i += 2) {
      const part = `${this.symbolText(refs.a[i]!)}=${JSON.stringify(this.symbolText(refs.a[i + 1]!))}`;
      parts.push(part);
      chars += part.length + 2;
    }
    const text = `{${parts.join(', ')}}`;
    return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}…}` : text;
  }
}
