import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { MatchType } from '../../src/index/types.js';
import { batchBuilder, decodeSelected, openSmallDb, samples, tempDir } from '../support/db.js';
import { rng } from '../support/series.js';

const tmp = tempDir();
after(() => tmp.remove());
let n = 0;
const RANGE = 7_200_000;
const sel = [{ type: MatchType.EQ, name: 'a', value: '1' }];

/** Prometheus' head cut rule (2.x, 120 samples a chunk), written plainly: chunk spans [minT, maxT]. */
function referenceChunks(ts: readonly number[]): [number, number][] {
  const out: [number, number][] = [];
  const rangeEnd = (t: number) => Math.trunc(t / RANGE) * RANGE + RANGE;
  let cur: number[] = [];
  let nextAt = 0;
  for (const t of ts) {
    if (cur.length === 0) {
      cur = [t];
      nextAt = rangeEnd(t);
      continue;
    }
    const count = cur.length;
    if (count === 30) {
      const start = cur[0]!;
      const k = Math.trunc((nextAt - start) / ((cur[count - 1]! - start + 1) * 4));
      if (k > 1) nextAt = start + Math.trunc((nextAt - start) / k);
    }
    if (t >= nextAt || count >= 240) {
      out.push([cur[0]!, cur[count - 1]!]);
      cur = [t];
      nextAt = rangeEnd(t);
    } else {
      cur.push(t);
    }
  }
  if (cur.length > 0) out.push([cur[0]!, cur.at(-1)!]);
  return out;
}

async function chunksFor(ts: number[], batchSize: number): Promise<[number, number][]> {
  const db = await openSmallDb(`${tmp.dir}/${n++}`);
  const b = batchBuilder();
  for (let i = 0; i < ts.length; i += batchSize) {
    const part = ts.slice(i, i + batchSize);
    b.add(['a', '1'], ...samples(part, part.map((_, j) => i + j)));
    db.append(b.finish());
  }
  const got = db.querier().select(sel, -Infinity, Infinity);
  const spans = got[0]!.chunks.map((c) => [c.minT, c.maxT] as [number, number]);
  const decoded = decodeSelected(got)[0]!;
  assert.deepEqual(decoded.t, ts, 'every sample comes back once, in order');
  await db.close();
  return spans;
}

test('a 15 s scrape from a range boundary gives chunks of 120 samples', async () => {
  const ts = Array.from({ length: 480 }, (_, i) => RANGE * 1000 + i * 15_000);
  const spans = await chunksFor(ts, 7);
  assert.equal(spans.length, 4);
  for (const [i, [lo, hi]] of spans.entries()) {
    assert.equal(lo, ts[i * 120]);
    assert.equal(hi, ts[i * 120 + 119]);
  }
});

test('chunks are cut as Prometheus cuts them, never across a multiple of the chunk range', async () => {
  const next = rng(7);
  for (let round = 0; round < 6; round++) {
    const ts: number[] = [];
    let t = Math.floor(next() * 1e12) - 5e11;
    for (let i = 0; i < 900; i++) {
      t += 1 + Math.floor(next() * (round % 2 === 0 ? 30_000 : 400_000));
      ts.push(t);
    }
    const spans = await chunksFor(ts, 1 + Math.floor(next() * 50));
    assert.deepEqual(spans, referenceChunks(ts), `round ${round}`);
    // Go's division truncates toward zero, so before 1970 Prometheus' ranges are not floor-aligned.
    for (const [lo, hi] of spans.filter(([lo]) => lo >= 0)) {
      assert.equal(Math.floor(lo / RANGE), Math.floor(hi / RANGE), `chunk [${lo}, ${hi}] crosses a range boundary`);
    }
  }
});

test('full chunks move to memory-mapped segment files under chunks_head', async () => {
  const dir = `${tmp.dir}/${n++}`;
  const db = await openSmallDb(dir, { chunkSegmentBytes: 8 * 1024 });
  const b = batchBuilder();
  for (let s = 0; s < 50; s++) {
    const ts = Array.from({ length: 600 }, (_, i) => i * 15_000);
    b.add(['a', String(s)], ...samples(ts, ts.map((x) => x / 1000)));
  }
  db.append(b.finish());
  assert.ok(db.diskBytes().chunks > 50 * 4 * 100, 'closed chunks are in files');
  const files = readdirSync(`${dir}/chunks_head`);
  assert.ok(files.length >= 2, `several 8 KiB segments (${files.join(', ')})`);
  const got = db.querier().select([{ type: MatchType.EQ, name: 'a', value: '7' }], 0, Infinity);
  assert.equal(got[0]!.chunks.length, 5);
  assert.equal(decodeSelected(got)[0]!.t.length, 600);
  await db.close();
});
