/**
 * Checks of a Series answer against the Store API contract, written from
 * the specification (proto/thanos/store/rpc.proto, WIRE.md), and decoding
 * of the chunks answered with the project's codec (the only part of src/
 * this suite uses).
 */
import assert from 'node:assert/strict';
import xxhash from 'xxhash-wasm';
import { threadCodec } from '../../../src/chunkenc/index.js';
import { XOR, type Frame, type Label, type Series } from './client.js';
import { bitsOfNumber, type WriteSample } from './write-request.js';

/** An independent xxHash64 (seed 0), for Chunk.hash. */
const { h64Raw } = await xxhash();

/** Go's string comparison: byte-wise over UTF-8 (not JS's UTF-16 code units). */
export function compareStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Prometheus' labels.Compare: pairwise by name then value, then the shorter set first. */
export function compareLabelSets(a: readonly Label[], b: readonly Label[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const byName = compareStrings(a[i]!.name, b[i]!.name);
    if (byName !== 0) return byName;
    const byValue = compareStrings(a[i]!.value, b[i]!.value);
    if (byValue !== 0) return byValue;
  }
  return a.length - b.length;
}

/** {a="1", b="2"} for messages and map keys. */
export function show(labels: readonly Label[] | ReadonlyArray<readonly [string, string]>): string {
  const pairs = labels.map((l) => (Array.isArray(l) ? l : [(l as Label).name, (l as Label).value]) as [string, string]);
  return `{${pairs.map(([n, v]) => `${n}=${JSON.stringify(v)}`).join(', ')}}`;
}

/** Label pairs as sorted Label objects (byte order of names). */
export function labelSet(pairs: Record<string, string> | ReadonlyArray<readonly [string, string]>): Label[] {
  const entries = Array.isArray(pairs) ? (pairs as ReadonlyArray<readonly [string, string]>) : Object.entries(pairs);
  return entries.map(([name, value]) => ({ name, value })).sort((a, b) => compareStrings(a.name, b.name));
}

/**
 * The label set a series written with `written` is answered with: the
 * written labels, then the tenant label and the external labels over them
 * (both win over a stored label of the same name), sorted by name.
 */
export function answeredLabels(
  written: ReadonlyArray<readonly [string, string]>,
  opts: { tenant?: string; tenantLabel?: string; external?: Record<string, string>; drop?: readonly string[] } = {},
): Label[] {
  const m = new Map<string, string>(written.map(([n, v]) => [n, v]));
  m.set(opts.tenantLabel ?? 'tenant_id', opts.tenant === undefined || opts.tenant === '' ? 'default-tenant' : opts.tenant);
  for (const [n, v] of Object.entries(opts.external ?? {})) m.set(n, v);
  for (const n of opts.drop ?? []) m.delete(n);
  return labelSet([...m]);
}

/** One series of an answer: its labels and the chunks of all its consecutive frames. */
export interface AnsweredSeries {
  labels: Label[];
  chunks: Series['chunks'];
  frames: number;
  frameBytes: number[];
}

/**
 * The answer's series frames grouped into series (consecutive frames with
 * equal labels), after checking the stream contract:
 * - every frame is a series, a warning or hints (the oneof is set);
 * - labels within a frame are sorted by name, names unique;
 * - series come whole and sorted: each next distinct label set is greater
 *   than the previous one (Go byte order), so no series comes back later;
 * - chunks of a series, across its frames, are ordered by min_time;
 * - unless `skipChunks`, each chunk is raw XOR with data and no aggregate,
 *   min_time <= max_time, and a hash that is 0 (not computed) or the
 *   xxhash64 of the data; with `skipChunks`, no chunks at all.
 */
export function seriesOf(frames: readonly Frame[], opts: { skipChunks?: boolean } = {}): AnsweredSeries[] {
  const out: AnsweredSeries[] = [];
  for (const [i, f] of frames.entries()) {
    assert.ok(f.result === 'series' || f.result === 'warning' || f.result === 'hints', `frame ${i} has no result set`);
    if (f.result !== 'series') continue;
    const s = f.series!;
    for (let k = 1; k < s.labels.length; k++) {
      assert.ok(
        compareStrings(s.labels[k - 1]!.name, s.labels[k]!.name) < 0,
        `frame ${i}: labels not sorted by name or a name repeats: ${show(s.labels)}`,
      );
    }
    const last = out[out.length - 1];
    const order = last === undefined ? 1 : compareLabelSets(last.labels, s.labels);
    if (last !== undefined && order === 0) {
      last.chunks.push(...s.chunks);
      last.frames++;
      last.frameBytes.push(f.bytes);
    } else {
      assert.ok(
        last === undefined || order < 0,
        `frame ${i}: series ${show(s.labels)} comes after ${show(last?.labels ?? [])}: not sorted, or a series resumed after another began`,
      );
      out.push({ labels: s.labels, chunks: [...s.chunks], frames: 1, frameBytes: [f.bytes] });
    }
  }
  for (const s of out) {
    if (opts.skipChunks) {
      assert.equal(s.chunks.length, 0, `skip_chunks: ${show(s.labels)} carries chunks`);
      continue;
    }
    let prev = -(2n ** 63n);
    for (const [k, c] of s.chunks.entries()) {
      const min = BigInt(c.min_time);
      const max = BigInt(c.max_time);
      assert.ok(min >= prev, `${show(s.labels)}: chunk ${k} min_time ${min} before chunk ${k - 1}'s ${prev}`);
      assert.ok(min <= max, `${show(s.labels)}: chunk ${k} min_time ${min} > max_time ${max}`);
      prev = min;
      assert.ok(c.raw, `${show(s.labels)}: chunk ${k} has no raw chunk`);
      assert.equal(c.raw.type, XOR, `${show(s.labels)}: chunk ${k} is not XOR`);
      assert.ok(c.raw.data.length >= 2, `${show(s.labels)}: chunk ${k} has no data`);
      if (c.raw.hash !== '0') {
        assert.equal(BigInt(c.raw.hash), h64Raw(c.raw.data, 0n), `${show(s.labels)}: chunk ${k} hash is not the xxhash64 of its data`);
      }
      for (const aggr of ['count', 'sum', 'min', 'max', 'counter'] as const) {
        assert.equal(c[aggr], null, `${show(s.labels)}: chunk ${k} sets the ${aggr} aggregate on raw data`);
      }
    }
  }
  return out;
}

/** Warnings of an answer, in order. */
export function warningsOf(frames: readonly Frame[]): string[] {
  return frames.filter((f) => f.result === 'warning').map((f) => f.warning ?? '');
}

/** Decoded samples: timestamps and raw value bits. */
export interface DecodedSamples {
  t: bigint[];
  bits: bigint[];
}

/**
 * Decodes every chunk of a series with the codec and concatenates them.
 * Checks that each chunk's min_time and max_time are its first and last
 * sample's timestamps (AggrChunk's contract), and that samples increase in
 * time across chunks.
 */
export function decodeSeries(s: { labels: Label[]; chunks: Series['chunks'] }): DecodedSamples {
  const codec = threadCodec();
  const t: bigint[] = [];
  const bits: bigint[] = [];
  for (const [k, c] of s.chunks.entries()) {
    const data = c.raw!.data;
    const samples = codec.decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    const n = samples.timestamps.length;
    assert.ok(n > 0, `${show(s.labels)}: chunk ${k} holds no samples`);
    assert.equal(BigInt(c.min_time), samples.timestamps[0], `${show(s.labels)}: chunk ${k} min_time is not its first sample's timestamp`);
    assert.equal(BigInt(c.max_time), samples.timestamps[n - 1], `${show(s.labels)}: chunk ${k} max_time is not its last sample's timestamp`);
    const valueBits = new BigUint64Array(samples.values.buffer, samples.values.byteOffset, n);
    for (let i = 0; i < n; i++) {
      const ts = samples.timestamps[i]!;
      if (t.length > 0) assert.ok(ts > t[t.length - 1]!, `${show(s.labels)}: sample at ${ts} does not follow ${t[t.length - 1]}`);
      t.push(ts);
      bits.push(valueBits[i]!);
    }
  }
  return { t, bits };
}

/** The samples written, as timestamps and bits, optionally restricted to [min, max]. */
export function writtenSamples(samples: readonly WriteSample[], range?: { min: bigint; max: bigint }): DecodedSamples {
  const t: bigint[] = [];
  const bits: bigint[] = [];
  for (const s of samples) {
    if (range && (s.t < range.min || s.t > range.max)) continue;
    t.push(s.t);
    bits.push(s.bits ?? bitsOfNumber(s.v ?? 0));
  }
  return { t, bits };
}

/** Restricts decoded samples to [min, max]. */
export function within(d: DecodedSamples, min: bigint, max: bigint): DecodedSamples {
  const t: bigint[] = [];
  const bits: bigint[] = [];
  d.t.forEach((ts, i) => {
    if (ts >= min && ts <= max) {
      t.push(ts);
      bits.push(d.bits[i]!);
    }
  });
  return { t, bits };
}

/**
 * Asserts that decoded samples equal the expected ones exactly (timestamps
 * and value bits), naming the first difference rather than dumping arrays.
 */
export function assertSamplesEqual(got: DecodedSamples, want: DecodedSamples, what: string): void {
  const n = Math.min(got.t.length, want.t.length);
  for (let i = 0; i < n; i++) {
    if (got.t[i] !== want.t[i] || got.bits[i] !== want.bits[i]) {
      assert.fail(
        `${what}: sample ${i} is (${got.t[i]}, 0x${got.bits[i]!.toString(16)}), written (${want.t[i]}, 0x${want.bits[i]!.toString(16)})`,
      );
    }
  }
  assert.equal(got.t.length, want.t.length, `${what}: ${got.t.length} samples answered, ${want.t.length} written`);
}

/** Label sets of series, shown, for deepEqual with readable diffs. */
export function shown(series: ReadonlyArray<{ labels: readonly Label[] }>): string[] {
  return series.map((s) => show(s.labels));
}
