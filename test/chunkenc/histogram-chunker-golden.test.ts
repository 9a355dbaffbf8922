// The chunker against Prometheus 2.42's head: for long series that reach
// every rule (cuts by count, range and rate, recodes, resets, layout
// changes, gauges, stale markers, integer/float switches), the chunker must
// accept the same samples and close chunks of the same bytes as Prometheus'
// own chunkenc driven through head_append.go's decisions
// (histogram-chunker-vectors.ts says how those were made).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { HistogramChunker, histogramCodecSets, type ClosedHistogramChunk } from '../../src/chunkenc/index.js';
import { rng } from '../support/series.js';
import { CHUNKER_VECTORS, type ChunkSummary } from './histogram-chunker-vectors.js';
import { headSeries } from './histogram-support.js';

function summary(c: { encoding: number; minT: number; maxT: number; data: Uint8Array }): ChunkSummary {
  const hex = Buffer.from(c.data).toString('hex');
  return {
    enc: c.encoding, minT: c.minT, maxT: c.maxT, bytes: c.data.length, header: c.data[2]! >> 6,
    count: (c.data[0]! << 8) | c.data[1]!, sha: createHash('sha256').update(hex).digest('hex').slice(0, 16),
  };
}

for (const set of histogramCodecSets()) {
  describe(`${set.name} chunker against Prometheus 2.42's head`, () => {
    for (const v of CHUNKER_VECTORS) {
      test(`seed ${v.seed}: ${v.n} samples, ${v.closed.length} chunks closed`, () => {
        const chunker = new HistogramChunker({ chunkRange: v.chunkRange, codecs: set });
        const closed: ClosedHistogramChunk[] = [];
        let steps = '';
        for (const s of headSeries(rng(v.seed), v.n, v.eventful)) {
          const r = s.float ? chunker.appendFloatHistogram(s.t, s.h) : chunker.appendHistogram(s.t, s.h);
          steps += !r.appended ? 'x' : !r.created ? '.' : r.closed ? 'C' : 'n';
          if (r.closed) closed.push(r.closed);
        }
        assert.equal(steps, v.steps);
        assert.deepEqual(closed.map(summary), v.closed);
        const open = chunker.open;
        assert.deepEqual(open && summary({ ...open, data: open.bytes() }), v.open ?? undefined);
        // Every chunk's header and count agree with what the chunker says of it.
        for (const c of closed) {
          assert.equal(c.header, c.data[2]! >> 6);
          assert.equal(c.count, (c.data[0]! << 8) | c.data[1]!);
        }
      });
    }
  });
}
