import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { MatchType } from '../../src/index/types.js';
import { bitsHex, decodeSelected, openSmallDb, tempDir } from '../support/db.js';
import { rng } from '../support/series.js';
import { crashBatchSeries, crashBatchTimes, crashValue } from './support/crash-batches.js';

const child = fileURLToPath(new URL('./support/crash-child.ts', import.meta.url));
const tmp = tempDir();
after(() => tmp.remove());

/** Runs the child from batch `first`, SIGKILLs it after `acks` acknowledgements; returns the last acked batch. */
function ingestUntilKilled(dir: string, first: number, acks: number): Promise<number> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir, String(first), String(first + 100_000)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let last = first - 1;
    let buffered = '';
    const deadline = setTimeout(() => p.kill('SIGKILL'), 20_000);
    p.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('ack ')) continue;
        last = Number(line.slice(4));
        if (last - first + 1 >= acks) p.kill('SIGKILL');
      }
    });
    p.on('error', fail);
    p.on('exit', () => {
      clearTimeout(deadline);
      done(last);
    });
  });
}

/** What the store must hold after batches 1..upTo. */
function expected(upTo: number): Map<string, { t: number[]; v: string[] }> {
  const m = new Map<string, { t: number[]; v: string[] }>();
  for (let i = 1; i <= upTo; i++) {
    crashBatchSeries(i).forEach((labels, s) => {
      const key = labels.join(',');
      let e = m.get(key);
      if (e === undefined) m.set(key, (e = { t: [], v: [] }));
      crashBatchTimes(i).forEach((t, k) => {
        e!.t.push(t);
        e!.v.push(bitsHex(crashValue(i, s, k)));
      });
    });
  }
  return m;
}

test('kill -9 while ingesting loses no acknowledged batch and invents nothing, over repeated crashes', async () => {
  const dir = `${tmp.dir}/crash`;
  const next = rng(99);
  let held = 0;
  for (let round = 0; round < 4; round++) {
    const acked = await ingestUntilKilled(dir, held + 1, 20 + Math.floor(next() * 300));
    const db = await openSmallDb(dir, { walSegmentsKept: 2 });
    const got = decodeSelected(db.querier().select([{ type: MatchType.NEQ, name: '__name__', value: '' }], -Infinity, Infinity));
    await db.close();
    // The batch in flight when the kill came may be there whole, or not at all.
    const steady = got.find((s) => s.labels.join(',') === '__name__,steady,i,0');
    const holds = steady === undefined ? 0 : steady.t.length / 3;
    assert.ok(holds === acked || holds === acked + 1, `round ${round}: acked ${acked}, store holds ${holds} batches`);
    const want = expected(holds);
    assert.equal(got.length, want.size, `round ${round}: series count`);
    for (const s of got) {
      const w = want.get(s.labels.join(','));
      assert.ok(w, `round ${round}: invented series ${s.labels.join(',')}`);
      assert.deepEqual(s.t, w.t, `round ${round}: timestamps of ${s.labels.join(',')}`);
      assert.deepEqual(s.v, w.v, `round ${round}: values of ${s.labels.join(',')}`);
    }
    held = holds;
  }
  assert.ok(held > 40, 'enough batches went through to roll and truncate the WAL');
});
