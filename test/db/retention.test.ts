import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { MatchType } from '../../src/index/types.js';
import { batchBuilder, decodeSelected, openSmallDb, samples, tempDir } from '../support/db.js';

const tmp = tempDir();
after(() => tmp.remove());
const HOUR = 3_600_000;

test('retention deletes old chunk files and drops series left without data', async () => {
  const dir = `${tmp.dir}/r`;
  const db = await openSmallDb(dir, { retentionMs: 6 * HOUR, chunkSegmentBytes: 16 * 1024 });
  const b = batchBuilder();
  // 30 "old" series live for 4 h, then stop; "new" ones run for 24 h.
  for (let step = 0; step < 24 * 4; step++) {
    const t0 = step * 15 * 60_000;
    const ts = Array.from({ length: 60 }, (_, k) => t0 + k * 15_000);
    for (let s = 0; s < 30; s++) {
      if (t0 < 4 * HOUR) b.add(['job', 'old', 's', String(s)], ...samples(ts, ts.map((t) => t + s)));
      b.add(['job', 'new', 's', String(s)], ...samples(ts, ts.map((t) => t - s)));
    }
    db.append(b.finish());
  }
  const filesBefore = readdirSync(`${dir}/chunks_head`).length;
  const diskBefore = db.diskBytes().chunks;
  const q = db.querier();
  assert.deepEqual(q.labelValues('job', [], -Infinity, Infinity), ['new', 'old']);
  const r = db.applyRetentionNow();
  assert.equal(r.cutoff, db.maxTime - 6 * HOUR);
  assert.ok(r.deletedFiles > 0, 'whole files deleted');
  assert.equal(r.droppedSeries, 30);
  assert.ok(readdirSync(`${dir}/chunks_head`).length < filesBefore);
  assert.ok(db.diskBytes().chunks < diskBefore, 'disk space freed');
  const after1 = db.querier();
  assert.deepEqual(after1.labelValues('job', [], -Infinity, Infinity), ['new']);
  assert.equal(after1.select([{ type: MatchType.EQ, name: 'job', value: 'old' }], -Infinity, Infinity).length, 0);
  assert.ok(db.minTime >= r.cutoff - 2 * HOUR, `min time ${db.minTime} moved up toward the cutoff ${r.cutoff}`);
  const recent = decodeSelected(after1.select([{ type: MatchType.EQ, name: 's', value: '3' }], db.maxTime - HOUR, db.maxTime));
  assert.equal(recent.length, 1);
  assert.equal(recent[0]!.t.at(-1), db.maxTime);
  await db.close();
});
