import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MatchType } from '../../src/index/types.js';
import { bitsHex, decodeSelected, openSmallDb, tempDir } from '../support/db.js';
import { rng } from '../support/series.js';
import { crashBatchSeries, crashBatchTimes, crashValue } from './support/crash-batches.js';

const child = fileURLToPath(new URL('./support/crash-child.ts', import.meta.url));
const tmp = tempDir();
after(() => tmp.remove());

/** Runs the child from batch `first`, SIGKILLs it after `acks` acknowledgements; returns the last acked batch. */
function ingestUntilKilled(dir: string, first: number, acks: number, options?: object): Promise<number> {
  return new Promise((done, fail) => {
    const extra = options === undefined ? [] : [JSON.stringify(options)];
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir, String(first), String(first + 100_000), ...extra], {
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


/** Checks that the store holds exactly batches 1..n for some n in [acked, acked + 1]; returns n. */
function checkHeld(got: ReturnType<typeof decodeSelected>, acked: number, what: string): number {
  // The batch in flight when the kill came may be there whole, or not at all.
  const steady = got.find((s) => s.labels.join(',') === '__name__,steady,i,0');
  const holds = steady === undefined ? 0 : steady.t.length / 3;
  assert.ok(holds === acked || holds === acked + 1, `${what}: acked ${acked}, store holds ${holds} batches`);
  const want = expected(holds);
  assert.equal(got.length, want.size, `${what}: series count`);
  for (const s of got) {
    const w = want.get(s.labels.join(','));
    assert.ok(w, `${what}: invented series ${s.labels.join(',')}`);
    assert.deepEqual(s.t, w.t, `${what}: timestamps of ${s.labels.join(',')}`);
    assert.deepEqual(s.v, w.v, `${what}: values of ${s.labels.join(',')}`);
  }
  return holds;
}

test('kill -9 while blocks are cut from the head and compacted: every acknowledged sample once, no partial block read', async () => {
  const dir = `${tmp.dir}/crash-blocks`;
  // Ten-minute block ranges: batches advance 45 s, so a block is cut every
  // dozen batches and compactions follow.
  const options = { chunkRangeMs: 600_000 };
  const next = rng(7);
  let held = 0;
  for (let round = 0; round < 6; round++) {
    const acked = await ingestUntilKilled(dir, held + 1, 30 + Math.floor(next() * 400), options);
    const db = await openSmallDb(dir, { walSegmentsKept: 2, ...options });
    const got = decodeSelected(db.querier().select([{ type: MatchType.NEQ, name: '__name__', value: '' }], -Infinity, Infinity));
    const blocks = db.blockCount;
    await db.close();
    held = checkHeld(got, acked, `round ${round} (${blocks} blocks)`);
    for (const name of readdirSync(`${dir}/blocks`)) {
      assert.ok(/^[0-9A-Z]{26}$/.test(name), `round ${round}: ${name} left in blocks/ after a restart`);
      assert.ok(existsSync(`${dir}/blocks/${name}/meta.json`), `round ${round}: block ${name} has no meta.json`);
    }
  }
  const metas = readdirSync(`${dir}/blocks`).map((u) => JSON.parse(readFileSync(`${dir}/blocks/${u}/meta.json`, 'utf8')) as { compaction: { level: number } });
  assert.ok(metas.length > 0, 'blocks were cut');
  assert.ok(metas.some((m) => m.compaction.level > 1), 'blocks were compacted');
});

test('kill -9 while ingesting loses no acknowledged batch and invents nothing, over repeated crashes', async () => {
  const dir = `${tmp.dir}/crash`;
  const next = rng(99);
  let held = 0;
  for (let round = 0; round < 4; round++) {
    const acked = await ingestUntilKilled(dir, held + 1, 20 + Math.floor(next() * 300));
    const db = await openSmallDb(dir, { walSegmentsKept: 2 });
    const got = decodeSelected(db.querier().select([{ type: MatchType.NEQ, name: '__name__', value: '' }], -Infinity, Infinity));
    await db.close();
    held = checkHeld(got, acked, `round ${round}`);
  }
  assert.ok(held > 40, 'enough batches went through to roll and truncate the WAL');
});
