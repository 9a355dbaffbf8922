// Builders of remote-write requests (the generated ts-proto encoders, and
// @bufbuild's BinaryWriter where a test needs bytes those encoders never
// write) and a decoder of the append batch the parser answers.
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { WriteRequest as PrometheusWriteRequest } from '../../src/gen/prometheus/remote.js';
import { WriteRequest } from '../../src/gen/thanos/store/rpc.js';
import { Label } from '../../src/gen/thanos/store/labels.js';
import { Histogram } from '../../src/gen/thanos/store/prompb/types.js';
import type { TimeSeries } from '../../src/gen/thanos/store/prompb/types.js';
import { viewAppendBatch } from '../../src/record/append-batch.js';
import { instantiateHeadWasm } from '../../src/wasm/head.js';
import { ENTRY } from '../../src/wasm/layout.js';
import type { HeadWasm } from '../../src/wasm/head.js';
import { parseWriteRequest } from '../../src/ingest/parse/parse-write.js';
import { viewHistogramBatch } from '../../src/record/histogram-batch.js';
import { bodyIsFloat, decodeBody } from '../../src/record/histogram-body.js';
import type { FloatHistogram, Histogram as HistogramSample } from '../../src/chunkenc/histogram/types.js';
import type { ParsedWrite, ParseWriteOptions } from '../../src/ingest/parse/parse-write.js';

let shared: HeadWasm | undefined;

/** One module instance for the tests of a file (as a pool worker has one). */
export function headWasm(): HeadWasm {
  shared ??= instantiateHeadWasm();
  return shared;
}

/** parseWriteRequest with the thanos dialect unless told otherwise. */
export function parse(bytes: Uint8Array, opts: Partial<ParseWriteOptions> = {}): ParsedWrite {
  return parseWriteRequest(bytes, { dialect: 'thanos', ...opts }, headWasm());
}

/** A TimeSeries from flat labels [name, value, ...] and [timestamp, value] samples. */
export function series(labels: string[], samples: [bigint, number][] = [[1000n, 1]], extra: Partial<TimeSeries> = {}): TimeSeries {
  const pairs: Label[] = [];
  for (let i = 0; i < labels.length; i += 2) pairs.push({ name: labels[i]!, value: labels[i + 1]! });
  return {
    labels: pairs,
    samples: samples.map(([timestamp, value]) => ({ timestamp, value })),
    exemplars: [],
    histograms: [],
    ...extra,
  };
}

/** A thanos.WriteRequest, encoded by ts-proto. */
export function thanosRequest(timeseries: TimeSeries[], tenant = '', replica = 0n): Uint8Array {
  return WriteRequest.encode({ timeseries, tenant, replica }).finish();
}

/** A prometheus.WriteRequest, encoded by ts-proto (same TimeSeries bytes). */
export function prometheusRequest(timeseries: TimeSeries[]): Uint8Array {
  return PrometheusWriteRequest.encode({ timeseries, metadata: [] }).finish();
}

/** A small native histogram sample. */
export function histogram(timestamp: bigint): Histogram {
  return Histogram.fromPartial({ count: { $case: 'countInt', value: 3n }, sum: 1.5, schema: 1, timestamp });
}

/** A Sample whose value is given by its 64 bits (ts-proto would pass it through a JS number). */
export function rawSample(w: BinaryWriter, bits: bigint, timestamp: bigint): void {
  w.tag(2, WireType.LengthDelimited).fork();
  w.tag(1, WireType.Bit64).fixed64(bits);
  w.tag(2, WireType.Varint).int64(timestamp);
  w.join();
}

/** A TimeSeries written field by field, for samples given by their bits. */
export function rawSeries(labels: string[], samples: [bigint, bigint][]): Uint8Array {
  const w = new BinaryWriter();
  for (let i = 0; i < labels.length; i += 2) {
    Label.encode({ name: labels[i]!, value: labels[i + 1]! }, w.tag(1, WireType.LengthDelimited).fork()).join();
  }
  for (const [timestamp, bits] of samples) rawSample(w, bits, timestamp);
  return w.finish();
}

/** A WriteRequest whose series are given as encoded TimeSeries bytes. */
export function requestOf(encodedSeries: Uint8Array[], tenant = ''): Uint8Array {
  const w = new BinaryWriter();
  for (const s of encodedSeries) w.tag(1, WireType.LengthDelimited).bytes(s);
  if (tenant !== '') w.tag(2, WireType.LengthDelimited).string(tenant);
  return w.finish();
}

/** The bytes of an append batch, without the slack of a reused buffer after it. */
export function batchBytes(batch: ArrayBuffer): Uint8Array {
  return new Uint8Array(batch, 0, viewAppendBatch(batch).size);
}

/** One entry of an append batch, in plain values. */
export interface BatchEntry {
  hash: bigint;
  ref: number;
  /** Flat [name, value, ...], decoded from the canonical bytes. */
  labels: string[];
  labelBytes: Uint8Array;
  timestamps: bigint[];
  valueBits: bigint[];
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Every entry of an append batch, checking its layout on the way. */
export function decodeBatch(batch: ArrayBuffer): BatchEntry[] {
  const v = viewAppendBatch(batch);
  const d = new DataView(batch);
  const out: BatchEntry[] = [];
  for (let i = 0; i < v.entries; i++) {
    const e = v.entriesAt + i * ENTRY.size;
    const off = d.getUint32(e + ENTRY.labelsOff, true);
    const len = d.getUint32(e + ENTRY.labelsLen, true);
    const start = d.getUint32(e + ENTRY.start, true);
    const count = d.getUint32(e + ENTRY.count, true);
    const labelBytes = new Uint8Array(batch, v.labelsAt + off, len);
    const labels: string[] = [];
    let from = 0;
    for (let k = 0; k < len; k++) {
      if (labelBytes[k] === 0xff) {
        labels.push(decoder.decode(labelBytes.subarray(from, k)));
        from = k + 1;
      }
    }
    if (from !== len) throw new Error(`entry ${i}: label bytes do not end in 0xFF`);
    const timestamps: bigint[] = [];
    const valueBits: bigint[] = [];
    for (let k = start; k < start + count; k++) {
      timestamps.push(d.getBigInt64(v.timestampsAt + k * 8, true));
      valueBits.push(d.getBigUint64(v.valuesAt + k * 8, true));
    }
    out.push({ hash: d.getBigUint64(e + ENTRY.hash, true), ref: d.getUint32(e + ENTRY.ref, true), labels, labelBytes, timestamps, valueBits });
  }
  return out;
}

/** The 64 bits of a double. */
export function bitsOf(x: number): bigint {
  const d = new DataView(new ArrayBuffer(8));
  d.setFloat64(0, x, true);
  return d.getBigUint64(0, true);
}

/** One entry of a histogram batch, in plain values. */
export interface HistogramBatchEntry {
  hash: bigint;
  /** Series id + 1 for an entry given by ref (no labels then), else 0. */
  ref: number;
  /** Flat [name, value, ...]. */
  labels: string[];
  t: number[];
  /** Each sample's body decoded, and whether it is a float histogram. */
  h: (HistogramSample | FloatHistogram)[];
  float: boolean[];
  /** Each sample's body bytes. */
  bodies: Uint8Array[];
}

/** Every entry of a histogram batch, checking its layout on the way. */
export function decodeHistogramBatch(batch: ArrayBuffer): HistogramBatchEntry[] {
  const v = viewHistogramBatch(batch);
  const d = new DataView(batch);
  const bodies = new Uint8Array(batch, v.bodiesAt, v.bodyBytes);
  const out: HistogramBatchEntry[] = [];
  let next = 0;
  for (let i = 0; i < v.entries; i++) {
    const e = v.entriesAt + i * ENTRY.size;
    const off = d.getUint32(e + ENTRY.labelsOff, true);
    const len = d.getUint32(e + ENTRY.labelsLen, true);
    const start = d.getUint32(e + ENTRY.start, true);
    const count = d.getUint32(e + ENTRY.count, true);
    if (start !== next) throw new Error(`entry ${i}: samples start at ${start}, not ${next}`);
    next = start + count;
    const ref = d.getUint32(e + ENTRY.ref, true);
    if (ref === 0 && (len === 0 || new Uint8Array(batch, v.labelsAt + off + len - 1, 1)[0] !== 0xff)) throw new Error(`entry ${i}: label bytes do not end in 0xFF`);
    if (ref !== 0 && len !== 0) throw new Error(`entry ${i}: given by ref and by labels`);
    const labels = ref !== 0 ? [] : decodeLabelBytes(new Uint8Array(batch, v.labelsAt + off, len));
    const entry: HistogramBatchEntry = { hash: d.getBigUint64(e + ENTRY.hash, true), ref, labels, t: [], h: [], float: [], bodies: [] };
    for (let k = start; k < start + count; k++) {
      entry.t.push(Number(d.getBigInt64(v.timestampsAt + k * 8, true)));
      const from = d.getUint32(v.offsetsAt + k * 4, true);
      const to = d.getUint32(v.offsetsAt + (k + 1) * 4, true);
      entry.h.push(decodeBody(bodies, from, to));
      entry.float.push(bodyIsFloat(bodies, from));
      entry.bodies.push(bodies.slice(from, to));
    }
    out.push(entry);
  }
  if (next !== v.samples) throw new Error(`entries hold ${next} samples, the header says ${v.samples}`);
  return out;
}

function decodeLabelBytes(bytes: Uint8Array): string[] {
  const labels: string[] = [];
  let from = 0;
  for (let k = 0; k < bytes.length; k++) {
    if (bytes[k] === 0xff) {
      labels.push(decoder.decode(bytes.subarray(from, k)));
      from = k + 1;
    }
  }
  return labels;
}
