/**
 * Encodes thanos.WriteRequest bytes by hand, independently of the server's
 * code and of any generated encoder, so that sample values travel as raw
 * 64-bit patterns (Prometheus' stale marker is a signalling NaN that a JS
 * number held in an object may lose) and so that invalid label sets
 * (unsorted, duplicated, empty) go on the wire exactly as written.
 *
 * Field numbers (../../../../shared/WIRE.md): WriteRequest {timeseries = 1,
 * tenant = 2, replica = 3}; TimeSeries {labels = 1, samples = 2,
 * exemplars = 3, histograms = 4}; Label {name = 1, value = 2};
 * Sample {value = 1 (double), timestamp = 2 (int64)}.
 */

/** One sample: a timestamp (ms) and a value, given as a number or as raw float64 bits. */
export interface WriteSample {
  t: bigint;
  /** A plain value; ignored when `bits` is set. */
  v?: number;
  /** The value's raw IEEE-754 bit pattern (wins over `v`). */
  bits?: bigint;
}

/** A minimal native histogram sample (prometheus Histogram, field numbers as in Prometheus). */
export interface WriteHistogram {
  t: bigint;
  countInt: bigint;
  sum: number;
  schema: number;
}

export interface WriteSeries {
  /** Label pairs in the order they go on the wire (not sorted by this encoder). */
  labels: ReadonlyArray<readonly [string, string]>;
  samples?: readonly WriteSample[];
  histograms?: readonly WriteHistogram[];
}

export interface WriteRequestInput {
  timeseries: readonly WriteSeries[];
  tenant?: string;
  replica?: bigint;
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** The raw bits of a float64. */
export function bitsOfNumber(v: number): bigint {
  f64[0] = v;
  return u64[0]!;
}

/** A growable protobuf writer; only what the requests above need. */
class PbWriter {
  private buf = Buffer.allocUnsafe(1024);
  private pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  varint(x: bigint): void {
    let v = BigInt.asUintN(64, x);
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  /** A small non-negative varint (tags, lengths) without BigInt. */
  uvarint(x: number): void {
    this.ensure(10);
    while (x >= 0x80) {
      this.buf[this.pos++] = (x & 0x7f) | 0x80;
      x = Math.floor(x / 128);
    }
    this.buf[this.pos++] = x;
  }

  tag(field: number, wireType: number): void {
    this.uvarint(field * 8 + wireType);
  }

  fixed64(bits: bigint): void {
    this.ensure(8);
    this.buf.writeBigUInt64LE(BigInt.asUintN(64, bits), this.pos);
    this.pos += 8;
  }

  bytes(field: number, data: Uint8Array): void {
    this.tag(field, 2);
    this.uvarint(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  string(field: number, s: string): void {
    this.bytes(field, Buffer.from(s, 'utf8'));
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

function encodeLabel(name: string, value: string): Buffer {
  const w = new PbWriter();
  w.string(1, name);
  w.string(2, value);
  return w.finish();
}

function encodeSample(s: WriteSample): Buffer {
  const w = new PbWriter();
  w.tag(1, 1);
  w.fixed64(s.bits ?? bitsOfNumber(s.v ?? 0));
  w.tag(2, 0);
  w.varint(s.t);
  return w.finish();
}

function encodeHistogram(h: WriteHistogram): Buffer {
  const w = new PbWriter();
  w.tag(1, 0); // count_int
  w.varint(h.countInt);
  w.tag(3, 1); // sum
  w.fixed64(bitsOfNumber(h.sum));
  w.tag(4, 0); // schema, sint32 zigzag
  w.uvarint(h.schema >= 0 ? h.schema * 2 : -h.schema * 2 - 1);
  w.tag(15, 0); // timestamp
  w.varint(h.t);
  return w.finish();
}

function encodeSeries(s: WriteSeries): Buffer {
  const w = new PbWriter();
  for (const [name, value] of s.labels) w.bytes(1, encodeLabel(name, value));
  for (const sample of s.samples ?? []) w.bytes(2, encodeSample(sample));
  for (const h of s.histograms ?? []) w.bytes(4, encodeHistogram(h));
  return w.finish();
}

/** The bytes of a thanos.WriteRequest. */
export function encodeWriteRequest(req: WriteRequestInput): Buffer {
  const w = new PbWriter();
  for (const s of req.timeseries) w.bytes(1, encodeSeries(s));
  if (req.tenant !== undefined && req.tenant !== '') w.string(2, req.tenant);
  if (req.replica !== undefined && req.replica !== 0n) {
    w.tag(3, 0);
    w.varint(req.replica);
  }
  return w.finish();
}

/**
 * `n` samples, `stepMs` apart from `start`, with values from `value(i)`
 * (a number or raw bits as a bigint).
 */
export function samplesOf(n: number, start: bigint, stepMs: bigint, value: (i: number) => number | bigint): WriteSample[] {
  const out: WriteSample[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const v = value(i);
    out[i] = typeof v === 'bigint' ? { t: start + BigInt(i) * stepMs, bits: v } : { t: start + BigInt(i) * stepMs, v };
  }
  return out;
}
