/**
 * A translated series (translated.ts) as the fields of a
 * prometheus.TimeSeries, so OTLP writes take the one remote-write series
 * parser and append batch (src/ingest/parse/otlp-batch.ts): the same label
 * checks, WAL records and answers as remote write. Stale markers are
 * written as their exact bits (WIRE.md, "Stale markers").
 */
import { putUvarint, putUvarint64, putVarint, uvarintSize } from '../encoding/varint.js';
import type { OutExemplar, OutHistogram, OutSeries } from './translated.js';

const LEN = 2;
const VARINT = 0;
const FIXED64 = 1;
/** Prometheus' stale marker, value.StaleNaN: 0x7ff0000000000002, as little-endian halves. */
const STALE_LO = 2;
const STALE_HI = 0x7ff00000;

const encoder = new TextEncoder();
/** A buffer grown past this is not kept (one huge series does not pin its size). */
const REUSE_MAX = 1 << 20;

/**
 * A growable protobuf writer. A sub-message is written in place after a
 * one-byte length guess; a longer length moves it (copyWithin), which is
 * rare: labels, samples and spans are short.
 */
class Out {
  view: DataView;
  pos = 0;

  constructor(public buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  tag(field: number, wire: number): void {
    this.uvarint((field << 3) | wire);
  }
  uvarint(n: number): void {
    this.room(10);
    this.pos = putUvarint(this.buf, this.pos, n);
  }
  /** An int64 varint: negatives as ten bytes of two's complement. */
  int64(n: number): void {
    this.room(10);
    this.pos = putUvarint64(this.buf, this.pos, n);
  }
  zigzag(n: number): void {
    this.room(10);
    this.pos = putVarint(this.buf, this.pos, n);
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  double(v: number): void {
    this.room(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }
  stale(): void {
    this.room(8);
    this.view.setUint32(this.pos, STALE_LO, true);
    this.view.setUint32(this.pos + 4, STALE_HI, true);
    this.pos += 8;
  }
  string(field: number, s: string): void {
    this.tag(field, LEN);
    // Label names and values are short and mostly ASCII: written a char
    // a byte with a one-byte length, without the encoder's call and copy.
    const n = s.length;
    if (n < 0x80) {
      this.room(n + 1);
      const buf = this.buf;
      const at = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at + i] = c;
      }
      if (i === n) {
        buf[this.pos] = n;
        this.pos = at + n;
        return;
      }
    }
    const max = n * 3;
    this.room(max + 5);
    const at = this.pos;
    const { written } = encoder.encodeInto(s, this.buf.subarray(at + 5, at + 5 + max));
    this.uvarint(written);
    this.buf.copyWithin(this.pos, at + 5, at + 5 + written);
    this.pos += written;
  }
  /** Starts a sub-message: returns where its one-byte length goes. */
  begin(field: number): number {
    this.tag(field, LEN);
    this.room(1);
    return this.pos++;
  }
  end(at: number): void {
    const len = this.pos - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    const extra = uvarintSize(len) - 1;
    this.room(extra);
    this.buf.copyWithin(at + 1 + extra, at + 1, this.pos);
    const end = this.pos + extra;
    this.pos = at;
    this.uvarint(len);
    this.pos = end;
  }
}

function labels(o: Out, flat: string[]): void {
  for (let i = 0; i < flat.length; i += 2) {
    const at = o.begin(1);
    o.string(1, flat[i]!);
    o.string(2, flat[i + 1]!);
    o.end(at);
  }
}

function exemplar(o: Out, e: OutExemplar): void {
  const at = o.begin(3);
  labels(o, e.labels);
  o.tag(2, FIXED64);
  o.double(e.value);
  o.tag(3, VARINT);
  o.int64(e.timeMs);
  o.end(at);
}

function spans(o: Out, field: number, pairs: number[]): void {
  for (let i = 0; i < pairs.length; i += 2) {
    const at = o.begin(field);
    o.tag(1, VARINT);
    o.zigzag(pairs[i]!);
    o.tag(2, VARINT);
    o.uvarint(pairs[i + 1]!);
    o.end(at);
  }
}

function deltas(o: Out, field: number, list: number[]): void {
  if (list.length === 0) return;
  const at = o.begin(field);
  for (const d of list) o.zigzag(d);
  o.end(at);
}

function histogram(o: Out, h: OutHistogram): void {
  const at = o.begin(4);
  o.tag(1, VARINT);
  o.uvarint(h.count);
  o.tag(3, FIXED64);
  if (h.stale) o.stale();
  else o.double(h.sum);
  o.tag(4, VARINT);
  o.zigzag(h.schema);
  o.tag(5, FIXED64);
  o.double(h.zeroThreshold);
  o.tag(6, VARINT);
  o.uvarint(h.zeroCount);
  spans(o, 8, h.negativeSpans);
  deltas(o, 9, h.negativeDeltas);
  spans(o, 11, h.positiveSpans);
  deltas(o, 12, h.positiveDeltas);
  if (h.resetHint !== 0) {
    o.tag(14, VARINT);
    o.uvarint(h.resetHint);
  }
  o.tag(15, VARINT);
  o.int64(h.timeMs);
  o.end(at);
}

/** Where encodeTimeSeries writes: grown as needed, kept unless one series grew it past REUSE_MAX. */
let scratch = new Out(new Uint8Array(1 << 12));

/**
 * The fields of a prometheus.TimeSeries (its labels, its sample or native
 * histogram, its exemplars) for one translated series, as the remote-write
 * parser reads them. Valid until the next call on this thread.
 */
export function encodeTimeSeries(s: OutSeries): Uint8Array {
  const o = scratch;
  o.pos = 0;
  labels(o, s.labels);
  if (s.sample !== undefined) {
    const p = o.begin(2);
    o.tag(1, FIXED64);
    if (s.sample.stale) o.stale();
    else o.double(s.sample.value);
    o.tag(2, VARINT);
    o.int64(s.sample.timeMs);
    o.end(p);
  }
  for (const e of s.exemplars) exemplar(o, e);
  if (s.histogram !== undefined) histogram(o, s.histogram);
  const bytes = o.buf.subarray(0, o.pos);
  if (o.buf.length > REUSE_MAX) scratch = new Out(new Uint8Array(1 << 12));
  return bytes;
}
