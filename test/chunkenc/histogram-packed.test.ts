// The chunker's packed path (a sample read from its body, no histogram
// object: how the head appends the common sample) against its object path,
// for integer and float histograms: the same decisions and the same bytes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HistogramChunker, type ClosedHistogramChunk } from '../../src/chunkenc/index.js';
import { sameHistogram } from '../../src/chunkenc/histogram/equal.js';
import { HistogramFields } from '../../src/chunkenc/histogram/fields.js';
import { PackedHistogram } from '../../src/chunkenc/histogram/packed.js';
import type { FloatHistogram, Histogram } from '../../src/chunkenc/histogram/types.js';
import { decodeBody, fieldsOf, maxBodyBytes, readPacked, writeBody } from '../../src/record/histogram-body.js';
import { rng } from '../support/series.js';
import { randomSeries } from './histogram-support.js';

/** The body of `h` (src/record/histogram-body.ts), as the parser writes it. */
function bodyOf(h: Histogram | FloatHistogram, float: boolean): Uint8Array {
  const f = new HistogramFields();
  fieldsOf(h, float, 0, f);
  const b = new Uint8Array(maxBodyBytes(f));
  return b.subarray(0, writeBody(f, b, new DataView(b.buffer), 0));
}

/** Several random runs of one layout each, one after the other: layout changes, resets, stale markers, time going back. */
function samples(seed: number, float: boolean): { t: number; h: Histogram | FloatHistogram }[] {
  const next = rng(seed);
  const out: { t: number; h: Histogram | FloatHistogram }[] = [];
  let base = 0;
  for (let run = 0; run < 4; run++) {
    const s = float ? randomSeries(next, 150, true) : randomSeries(next, 150, false);
    const t0 = Number(s.timestamps[0]!);
    for (let i = 0; i < s.histograms.length; i++) out.push({ t: base + Number(s.timestamps[i]!) - t0, h: s.histograms[i]! });
    base = out[out.length - 1]!.t + 15_000;
  }
  return out;
}

function closedBytes(c: ClosedHistogramChunk | undefined): string {
  return c === undefined ? '-' : `${c.encoding}/${c.minT}/${c.maxT}/${Buffer.from(c.data).toString('hex')}`;
}

for (const float of [false, true]) {
  describe(`packed appends, ${float ? 'float' : 'integer'} histograms`, () => {
    test('give the object path\'s decisions and chunk bytes, and take the common sample', () => {
      let packedTaken = 0;
      for (let seed = 1; seed <= 25; seed++) {
        const viaObjects = new HistogramChunker({ chunkRange: 7_200_000 });
        const viaBodies = new HistogramChunker({ chunkRange: 7_200_000 });
        const p = new PackedHistogram();
        for (const { t, h } of samples(seed, float)) {
          const want = float ? viaObjects.appendFloatHistogram(t, h) : viaObjects.appendHistogram(t, h as Histogram);
          const body = bodyOf(h, float);
          let got = readPacked(body, 0, body.length, p) ? viaBodies.appendPacked(t, p) : undefined;
          if (got !== undefined) {
            packedTaken++;
            // What the head compares a duplicate with: the sample itself.
            assert.ok(sameHistogram(viaBodies.lastHistogram()!, float, decodeBody(body, 0, body.length), float), `seed ${seed} t ${t}`);
          } else {
            const d = decodeBody(body, 0, body.length);
            got = float ? viaBodies.appendFloatHistogram(t, d) : viaBodies.appendHistogram(t, d as Histogram);
          }
          assert.equal(got.appended, want.appended, `seed ${seed} t ${t}`);
          assert.equal(closedBytes(got.closed), closedBytes(want.closed), `seed ${seed} t ${t}`);
          assert.deepEqual(viaBodies.open?.bytes(), viaObjects.open?.bytes(), `seed ${seed} t ${t}`);
        }
      }
      assert.ok(packedTaken > 1000, `packed path taken ${packedTaken} times`);
    });
  });
}
