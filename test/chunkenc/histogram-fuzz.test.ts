// Bytes that are not valid histogram chunks: random, truncated, mutated,
// with a wrong count. Every decode must end (bounded by time here) with
// samples or a ChunkDecodeError, never a trap or another error; both
// implementations must come to the same answer; and what the WebAssembly
// decoder answers must not depend on the memory after the chunk.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ChunkDecodeError, WasmFloatHistogramCodec, WasmHistogramCodec, tsHistogramCodecs, type DecodedHistogramChunk, type HistogramChunkCodec,
} from '../../src/chunkenc/index.js';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { rng } from '../support/series.js';
import { bitsOf, randomSeries } from './histogram-support.js';

const BUDGET_MS = 2_500;
const MAX_CASES = 6_000;

type Outcome = { ok: true; value: unknown } | { ok: false; reason: string; sampleIndex: number };

function exact(d: DecodedHistogramChunk<Histogram | FloatHistogram>): unknown {
  return {
    header: d.header,
    timestamps: [...d.timestamps],
    histograms: d.histograms.map((h) => ({
      ...h,
      zeroThreshold: bitsOf(h.zeroThreshold), zeroCount: bitsOf(h.zeroCount), count: bitsOf(h.count), sum: bitsOf(h.sum),
      positiveBuckets: h.positiveBuckets.map(bitsOf), negativeBuckets: h.negativeBuckets.map(bitsOf),
    })),
  };
}

function outcome(codec: HistogramChunkCodec<Histogram | FloatHistogram>, bytes: Uint8Array, kind: string): Outcome {
  try {
    return { ok: true, value: exact(codec.decode(bytes)) };
  } catch (err) {
    assert.ok(err instanceof ChunkDecodeError, `${codec.name} threw ${(err as Error).stack}`);
    assert.match(err.message, new RegExp(`^invalid ${kind} chunk: .+ \\(at sample \\d+\\)$`));
    return { ok: false, reason: err.reason, sampleIndex: err.sampleIndex };
  }
}

function mutate(next: () => number, chunk: Uint8Array): Uint8Array {
  const kind = Math.floor(next() * 6);
  let out = Uint8Array.from(chunk);
  if (kind === 0) out = out.subarray(0, Math.floor(next() * out.length));
  else if (kind === 1) for (let k = 1 + Math.floor(next() * 4); k > 0; k--) {
    const i = Math.floor(next() * out.length);
    out[i]! ^= 1 << Math.floor(next() * 8);
  } else if (kind === 2 && out.length >= 2) {
    const count = Math.max(0, ((out[0]! << 8) | out[1]!) + Math.floor(next() * 21) - 10);
    out[0] = count >> 8;
    out[1] = count & 0xff;
  } else if (kind === 3) {
    out = Uint8Array.from([...out, ...Array.from({ length: 1 + Math.floor(next() * 8) }, () => Math.floor(next() * 256))]);
  } else if (kind === 4 && out.length > 3) {
    // Anywhere in the layout: spans, schema, zero threshold.
    const i = 3 + Math.floor(next() * Math.min(12, out.length - 3));
    out[i] = Math.floor(next() * 256);
  } else {
    const i = Math.floor(next() * out.length);
    out[i] = Math.floor(next() * 256);
  }
  return out;
}

for (const float of [false, true]) {
  const kind = float ? 'float histogram' : 'histogram';
  test(`${kind}: random and mutated chunks decode or fail cleanly, the same in both codecs`, (t) => {
    const wasm = float ? new WasmFloatHistogramCodec() : new WasmHistogramCodec();
    const ts = float ? tsHistogramCodecs.floatHistogram : tsHistogramCodecs.histogram;
    const scratch = wasm.hw.chunk;
    const next = rng(float ? 31 : 32);
    const started = Date.now();
    let errors = 0;
    let cases = 0;
    const reasons = new Set<string>();
    for (; cases < MAX_CASES && Date.now() - started < BUDGET_MS; cases++) {
      let bytes: Uint8Array;
      if (cases % 5 === 0) {
        bytes = Uint8Array.from({ length: Math.floor(next() * 120) }, () => Math.floor(next() * 256));
        if (bytes.length >= 2 && next() < 0.7) bytes[0] = 0;
        if (bytes.length >= 2 && next() < 0.5) bytes[1] = Math.floor(next() * 8);
      } else {
        const { timestamps, histograms } = float ? randomSeries(next, 1 + Math.floor(next() * 12), true) : randomSeries(next, 1 + Math.floor(next() * 12), false);
        bytes = mutate(next, wasm.encode(timestamps, histograms));
      }
      // Garbage after the chunk in module memory must not change the answer.
      wasm.hw.mem.u8().fill(0xaa, scratch.ptr, scratch.ptr + scratch.size);
      const a = outcome(wasm, bytes, kind);
      wasm.hw.mem.u8().fill(0x55, scratch.ptr, scratch.ptr + scratch.size);
      assert.deepEqual(outcome(wasm, bytes, kind), a, `case ${cases}: depends on memory after the chunk`);
      const b = outcome(ts, bytes, kind);
      assert.deepEqual(b, a, `case ${cases}: both codecs answer the same`);
      if (!a.ok) {
        errors++;
        reasons.add(a.reason);
      }
    }
    assert.ok(cases >= 200, `only ${cases} cases ran in the time budget`);
    assert.ok(errors > cases / 4, `expected most mutations to be caught, got ${errors} of ${cases}`);
    t.diagnostic(`${cases} cases, ${errors} refused`);
    for (const r of ['truncated', 'trailing-bytes', 'bad-layout']) assert.ok(reasons.has(r), `no case failed with ${r}: ${[...reasons].join(', ')}`);
  });
}
