// kill -9 at random moments while out-of-order samples are taken, cut into
// blocks with the in-order ones (and into blocks of ranges already cut),
// compacted, and checkpointed: every acknowledged sample is held once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MatchType } from '../../src/index/types.js';
import { bitsHex, decodeSelected, openSmallDb, tempDir } from '../support/db.js';
import { rng } from '../support/series.js';
import { OOO_CRASH_RANGE_MS, OOO_CRASH_SERIES, OOO_CRASH_WINDOW_MS, oooCrashLabels, oooCrashSamples } from './support/ooo-batches.js';

const child = fileURLToPath(new URL('./support/ooo-crash-child.ts', import.meta.url));
const tmp = tempDir();
after(() => tmp.remove());

/** Runs the child from batch `first`, SIGKILLs it after `acks` acknowledgements; returns the last acked batch. */
function ingestUntilKilled(dir: string, first: number, acks: number): Promise<number> {
  return new Promise((done, fail) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir, String(first), String(first + 100_000)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let last = first - 1;
    let buffered = '';
    const deadline = setTimeout(() => p.kill('SIGKILL'), 30_000);
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

/**
 * Checks that series s holds every sample of batches 1..acked once, in time
 * order, and of batch acked + 1 (in flight when the kill came) any part,
 * and nothing else.
 */
function check(got: { labels: string[]; t: number[]; v: string[] }[], acked: number, what: string): void {
  assert.equal(got.length, OOO_CRASH_SERIES, `${what}: series`);
  for (let s = 0; s < OOO_CRASH_SERIES; s++) {
    const g = got.find((x) => x.labels.join(',') === oooCrashLabels(s).join(','))!;
    const must = new Map<number, string>();
    for (let i = 1; i <= acked; i++) for (const [t, v] of oooCrashSamples(i, s)) must.set(t, bitsHex(v));
    const may = new Map<number, string>(oooCrashSamples(acked + 1, s).map(([t, v]) => [t, bitsHex(v)]));
    for (let k = 1; k < g.t.length; k++) assert.ok(g.t[k]! > g.t[k - 1]!, `${what}: series ${s} at ${g.t[k]}: not after ${g.t[k - 1]} (twice, or out of order)`);
    g.t.forEach((t, k) => {
      const want = must.get(t) ?? may.get(t);
      assert.ok(want !== undefined, `${what}: series ${s} holds ${t}, never written`);
      assert.equal(g.v[k], want, `${what}: series ${s} at ${t}`);
      must.delete(t);
    });
    assert.deepEqual([...must.keys()], [], `${what}: series ${s} lost acknowledged samples`);
  }
}

test('kill -9 with out-of-order samples, blocks cut and compacted, checkpoints: every acknowledged sample once', { timeout: 300_000 }, async (t) => {
  const dir = `${tmp.dir}/ooo-crash`;
  const next = rng(16);
  let acked = 0;
  let merged = 0;
  for (let round = 0; round < 6; round++) {
    acked = await ingestUntilKilled(dir, acked + 1, 40 + Math.floor(next() * 300));
    const db = await openSmallDb(dir, { walSegmentsKept: 2, chunkRangeMs: OOO_CRASH_RANGE_MS, outOfOrderWindowMs: OOO_CRASH_WINDOW_MS });
    const sel = db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'ooo' }], -Infinity, Infinity);
    for (const s of sel) for (let k = 1; k < s.chunks.length; k++) assert.ok(s.chunks[k]!.minT > s.chunks[k - 1]!.maxT, `round ${round}: overlapping chunks`);
    const what = `round ${round}: ${acked} batches acked, ${db.blockCount} blocks, ${db.oooSamples} out-of-order samples in the head`;
    check(decodeSelected(sel), acked, what);
    t.diagnostic(what);
    // Let the head catch up (the child ingests faster than ranges are cut), and read again.
    await db.settle();
    check(decodeSelected(db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'ooo' }], -Infinity, Infinity)), acked, `${what}, caught up`);
    t.diagnostic(`caught up: ${db.blockCount} blocks, ${db.oooSamples} out-of-order samples in the head`);
    await db.close();
    // Blocks of out-of-order data alone overlap the blocks of their ranges: compaction merged them (their ULIDs are among the sources).
    const metas = readdirSync(`${dir}/blocks`).map((u) => JSON.parse(readFileSync(`${dir}/blocks/${u}/meta.json`, 'utf8')) as { compaction: { sources: string[] } });
    merged = Math.max(merged, ...metas.map((m) => m.compaction.sources.length));
  }
  assert.ok(acked > 400, `${acked} batches: blocks were cut`);
  assert.ok(merged > 1, 'blocks were compacted');
  const wal = readdirSync(`${dir}/wal`);
  assert.ok(wal.some((f) => f.startsWith('checkpoint.')), 'the WAL was checkpointed');
});
