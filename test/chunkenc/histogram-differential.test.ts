// Differential: the WebAssembly codec against the TypeScript oracle on
// random histogram series. Same bytes from the same samples, the same
// samples from the same bytes, batch or one sample at a time, and the same
// chunks from the chunker.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  HistogramChunker, tsHistogramCodecs, wasmHistogramCodecs, type DecodedHistogramChunk,
} from '../../src/chunkenc/index.js';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { rng } from '../support/series.js';
import { asDecoded, bitsOf, headSeries, randomSeries } from './histogram-support.js';

const wasm = wasmHistogramCodecs();
const ts = tsHistogramCodecs;

/** Every number as its bit pattern, so NaN payloads and -0 count. */
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

describe('differential: WebAssembly against TypeScript', () => {
  for (const float of [false, true]) {
    const kind = float ? 'float' : 'integer';
    test(`${kind} chunks: same bytes and samples for random series`, () => {
      const next = rng(float ? 77 : 78);
      for (let i = 0; i < 150; i++) {
        const { timestamps, histograms } = float ? randomSeries(next, 1 + Math.floor(next() * 30), true) : randomSeries(next, 1 + Math.floor(next() * 30), false);
        const header = Math.floor(next() * 4) as 0 | 1 | 2 | 3;
        const a = (float ? wasm.floatHistogram : wasm.histogram).encode(timestamps, histograms, header);
        const b = (float ? ts.floatHistogram : ts.histogram).encode(timestamps, histograms, header);
        assert.deepEqual([...a], [...b], `series ${i}: bytes`);
        const da = (float ? wasm.floatHistogram : wasm.histogram).decode(a);
        const db = (float ? ts.floatHistogram : ts.histogram).decode(a);
        assert.deepEqual(exact(da), exact(db), `series ${i}: decoded`);
        const want = histograms.map((h, k) => asDecoded(h, header === 3 ? 3 : k > 0 ? 2 : header === 2 ? 1 : 0));
        assert.deepEqual(exact(da), exact({ header, timestamps, histograms: want }), `series ${i}: round trip`);
      }
    });

    test(`${kind} appenders: one sample at a time gives the batch's bytes`, () => {
      const next = rng(float ? 5 : 6);
      const enc = float ? 3 : 2;
      const apps = [wasm.appender(enc), ts.appender(enc)];
      for (let i = 0; i < 60; i++) {
        const { timestamps, histograms } = float ? randomSeries(next, 1 + Math.floor(next() * 20), true) : randomSeries(next, 1 + Math.floor(next() * 20), false);
        // The appender takes timestamps as numbers: keep them in range.
        const t0 = timestamps[0]!;
        const tsn = timestamps.map((t) => BigInt.asIntN(64, t - t0) % (2n ** 50n));
        const batch = (float ? wasm.floatHistogram : wasm.histogram).encode(tsn, histograms, 1);
        for (const app of apps) {
          app.reset(1);
          histograms.forEach((h, k) => app.append(Number(tsn[k]!), h));
          assert.deepEqual([...app.bytes()], [...batch], `series ${i}`);
        }
      }
    });
  }

  test('chunkers on either codec close the same chunks', () => {
    for (const seed of [7, 8, 9]) {
      const steps = headSeries(rng(seed), 400, seed === 9 ? 0.05 : 1);
      const out = [wasm, ts].map((codecs) => {
        const chunker = new HistogramChunker({ codecs, chunkRange: 1_800_000 });
        const closed: number[][] = [];
        for (const s of steps) {
          const r = s.float ? chunker.appendFloatHistogram(s.t, s.h) : chunker.appendHistogram(s.t, s.h);
          if (r.closed) closed.push([r.closed.minT, r.closed.maxT, ...r.closed.data]);
        }
        closed.push([...(chunker.open?.bytes() ?? [])]);
        return closed;
      });
      assert.deepEqual(out[0], out[1], `seed ${seed}`);
    }
  });
});
