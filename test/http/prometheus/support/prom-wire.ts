/**
 * Prometheus remote write and read as a client speaks them, for black-box
 * tests: messages built with the generated prometheus types (src/gen),
 * snappy block compression from the `snappy` package, frames checked with
 * CRC32C.
 *
 * Sample values travel as raw 64-bit patterns both ways (WIRE.md "Stale
 * markers"): a write encodes each value as a placeholder double and then
 * overwrites its eight bytes with the wanted bits; a SAMPLES answer is
 * decoded by hand, reading each value's bytes as a BigInt.
 */
import { crc32c } from '@node-rs/crc32';
import { compressSync, uncompressSync } from 'snappy';
import { threadCodec } from '../../../../src/chunkenc/index.js';
import { ChunkedReadResponse, ReadRequest, ReadRequest_ResponseType, WriteRequest } from '../../../../src/gen/prometheus/remote.js';
import { call, type Answer } from '../../support/http-client.js';

export { ReadRequest_ResponseType };

/** Prometheus' stale marker. */
export const STALE = 0x7ff0000000000002n;

export interface Sample {
  t: number;
  /** The value's raw bits. */
  bits: bigint;
}

export type Labels = ReadonlyArray<readonly [string, string]>;

export interface Series {
  /** In wire order (sorted, unless a test wants otherwise). */
  labels: Labels;
  samples: readonly Sample[];
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

export function bitsOf(v: number): bigint {
  f64[0] = v;
  return u64[0]!;
}

/** `n` samples from `t0`, `step` ms apart, values from `value(i)`. */
export function samples(n: number, t0: number, step: number, value: (i: number) => number | bigint): Sample[] {
  return Array.from({ length: n }, (_, i) => {
    const v = value(i);
    return { t: t0 + i * step, bits: typeof v === 'bigint' ? v : bitsOf(v) };
  });
}

// Placeholders: finite doubles whose high half is MAGIC and low half the sample's index.
const MAGIC = 0x7fe0dead;

/** The protobuf bytes of a prometheus.WriteRequest (not compressed). */
export function writeRequestBytes(series: readonly Series[]): Uint8Array {
  const wanted: bigint[] = [];
  const message = WriteRequest.fromPartial({
    timeseries: series.map((s) => ({
      labels: s.labels.map(([name, value]) => ({ name, value })),
      samples: s.samples.map((x) => {
        const k = wanted.push(x.bits) - 1;
        u64[0] = (BigInt(MAGIC) << 32n) | BigInt(k);
        return { value: f64[0]!, timestamp: BigInt(x.t) };
      }),
    })),
  });
  const bytes = WriteRequest.encode(message).finish();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let replaced = 0;
  for (let i = 0; i + 9 <= bytes.length; i++) {
    if (bytes[i] !== 0x09 || view.getUint32(i + 5, true) !== MAGIC) continue;
    view.setBigUint64(i + 1, wanted[view.getUint32(i + 1, true)]!, true);
    replaced++;
    i += 8;
  }
  if (replaced !== wanted.length) throw new Error(`placed ${replaced} of ${wanted.length} sample values`);
  return bytes;
}

export interface WriteOptions {
  tenant?: string;
  path?: '/api/v1/write' | '/api/v1/receive';
  headers?: Record<string, string>;
}

/** POSTs a remote write of `series` (or of raw `body` bytes) as Prometheus does. */
export function postWrite(base: string, series: readonly Series[] | Uint8Array, opts: WriteOptions = {}): Promise<Answer> {
  const body = series instanceof Uint8Array ? series : compressSync(writeRequestBytes(series));
  const headers: Record<string, string> = {
    'content-type': 'application/x-protobuf',
    'content-encoding': 'snappy',
    'x-prometheus-remote-write-version': '0.1.0',
    ...(opts.tenant === undefined ? {} : { 'thanos-tenant': opts.tenant }),
    ...opts.headers,
  };
  return call(base, 'POST', opts.path ?? '/api/v1/write', { body, headers });
}

/** A query: [type, name, value] matchers (EQ 0, NEQ 1, RE 2, NRE 3) and an inclusive ms range. */
export interface ReadQuery {
  matchers: ReadonlyArray<readonly [number, string, string]>;
  start: number;
  end: number;
}

export function readRequestBody(queries: readonly ReadQuery[], types: readonly number[]): Buffer {
  const request = ReadRequest.fromPartial({
    queries: queries.map((q) => ({
      startTimestampMs: BigInt(q.start),
      endTimestampMs: BigInt(q.end),
      matchers: q.matchers.map(([type, name, value]) => ({ type, name, value })),
    })),
    acceptedResponseTypes: [...types],
  });
  return compressSync(ReadRequest.encode(request).finish());
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** POSTs a remote read; the answer's body as bytes. */
export async function postRead(base: string, queries: readonly ReadQuery[], opts: { types?: readonly number[]; tenant?: string; body?: Uint8Array } = {}): Promise<RawAnswer> {
  const res = await fetch(`${base}/api/v1/read`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-read-version': '0.1.0',
      ...(opts.tenant === undefined ? {} : { 'thanos-tenant': opts.tenant }),
    },
    body: opts.body ?? readRequestBody(queries, opts.types ?? []),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

// ------------------------------------------------------------ decoding

class Reader {
  pos = 0;
  constructor(readonly b: Uint8Array) {}

  varint(): bigint {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.b.length) throw new Error('truncated varint');
      const byte = this.b[this.pos++]!;
      v |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return v;
      shift += 7n;
    }
  }

  /** The bytes of a length-delimited field. */
  bytes(): Uint8Array {
    const n = Number(this.varint());
    const out = this.b.subarray(this.pos, this.pos + n);
    if (out.length !== n) throw new Error('truncated field');
    this.pos += n;
    return out;
  }

  fixed64(): bigint {
    const v = new DataView(this.b.buffer, this.b.byteOffset + this.pos, 8).getBigUint64(0, true);
    this.pos += 8;
    return v;
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`wire type ${wire}`);
  }

  get done(): boolean {
    return this.pos >= this.b.length;
  }
}

const utf8 = new TextDecoder();

function decodeLabel(bytes: Uint8Array): [string, string] {
  const r = new Reader(bytes);
  let name = '';
  let value = '';
  while (!r.done) {
    const tag = Number(r.varint());
    if (tag === 0x0a) name = utf8.decode(r.bytes());
    else if (tag === 0x12) value = utf8.decode(r.bytes());
    else r.skip(tag & 7);
  }
  return [name, value];
}

function decodeSample(bytes: Uint8Array): Sample {
  const r = new Reader(bytes);
  let t = 0n;
  let bits = 0n;
  while (!r.done) {
    const tag = Number(r.varint());
    if (tag === 0x09) bits = r.fixed64();
    else if (tag === 0x10) t = BigInt.asIntN(64, r.varint());
    else r.skip(tag & 7);
  }
  return { t: Number(t), bits };
}

export interface AnsweredSeries {
  labels: Array<[string, string]>;
  samples: Sample[];
}

/** A SAMPLES answer (snappy ReadResponse): per query, its series with samples as raw bits. */
export function decodeReadResponse(compressed: Uint8Array): AnsweredSeries[][] {
  const r = new Reader(uncompressSync(compressed) as Buffer);
  const results: AnsweredSeries[][] = [];
  while (!r.done) {
    const tag = Number(r.varint());
    if (tag !== 0x0a) {
      r.skip(tag & 7);
      continue;
    }
    const qr = new Reader(r.bytes());
    const series: AnsweredSeries[] = [];
    while (!qr.done) {
      const t2 = Number(qr.varint());
      if (t2 !== 0x0a) {
        qr.skip(t2 & 7);
        continue;
      }
      const ts = new Reader(qr.bytes());
      const s: AnsweredSeries = { labels: [], samples: [] };
      while (!ts.done) {
        const t3 = Number(ts.varint());
        if (t3 === 0x0a) s.labels.push(decodeLabel(ts.bytes()));
        else if (t3 === 0x12) s.samples.push(decodeSample(ts.bytes()));
        else ts.skip(t3 & 7);
      }
      series.push(s);
    }
    results.push(series);
  }
  return results;
}

export interface Frame {
  queryIndex: number;
  labels: Array<[string, string]>;
  chunks: Array<{ minT: number; maxT: number; type: number; data: Uint8Array }>;
  /** ChunkedSeries in the frame (Prometheus' client reads exactly one). */
  seriesInFrame: number;
}

/** A STREAMED_XOR_CHUNKS answer: frames, each checked against its CRC32C. */
export function decodeFrames(body: Uint8Array): Frame[] {
  const frames: Frame[] = [];
  const r = new Reader(body);
  while (!r.done) {
    const n = Number(r.varint());
    const crc = new DataView(body.buffer, body.byteOffset + r.pos, 4).getUint32(0, false);
    r.pos += 4;
    const message = body.subarray(r.pos, r.pos + n);
    if (message.length !== n) throw new Error(`frame truncated: ${message.length} of ${n} bytes`);
    r.pos += n;
    if (crc32c(message) !== crc) throw new Error(`frame ${frames.length}: CRC32C mismatch`);
    const m = ChunkedReadResponse.decode(message);
    const s = m.chunkedSeries[0];
    frames.push({
      queryIndex: Number(m.queryIndex),
      seriesInFrame: m.chunkedSeries.length,
      labels: (s?.labels ?? []).map((l) => [l.name, l.value]),
      chunks: (s?.chunks ?? []).map((c) => ({ minT: Number(c.minTimeMs), maxT: Number(c.maxTimeMs), type: c.type, data: c.data })),
    });
  }
  return frames;
}

/** The samples of an XOR chunk, values as raw bits (decoded by Strata's codec). */
export function chunkSamples(data: Uint8Array): Sample[] {
  const { timestamps, values } = threadCodec().decode(data);
  const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
  return Array.from(timestamps, (t, i) => ({ t: Number(t), bits: bits[i]! }));
}

/** Labels as `{a="1", b="2"}` for messages. */
export function show(labels: Labels): string {
  return `{${labels.map(([n, v]) => `${n}=${JSON.stringify(v)}`).join(', ')}}`;
}
