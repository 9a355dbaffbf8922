// `strata serve --objstore.config ...` ships its own blocks (issue 12): one
// block per tenant, in Thanos' layout, recorded in thanos.shipper.json; a
// kill -9 at any moment, over several rounds, leaves each block in the
// bucket once and whole, and the record right. The shipped blocks dump
// (promtool) the same samples as the local ones.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bitsOf, postWrite, type Series } from '../http/prometheus/support/prom-wire.js';
import { rng } from '../support/series.js';
import { exited, portOf, spawnServe } from '../support/serve-process.js';
import { serveStrata, waitFor, type Served } from './support/strata-blocks.js';

const root = mkdtempSync(join(tmpdir(), 'strata-ship-e2e-'));
after(() => rmSync(root, { recursive: true, force: true }));
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 1);
const STEP = 30_000;

const havePromtool = (() => {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** 40 series a tenant, samples every 30 s in [from, to), written window by window in time order. */
async function write(base: string, from: number, to: number): Promise<void> {
  for (let t = from; t < to; t += 10 * 60_000) {
    for (const tenant of ['default-tenant', 'team-a']) {
      const series: Series[] = [];
      for (let s = 0; s < 40; s++) {
        const samples = [];
        for (let u = t; u < Math.min(t + 10 * 60_000, to); u += STEP) samples.push({ t: u, bits: bitsOf((u / STEP + s) % 1000) });
        series.push({ labels: [['__name__', 'ship_e2e'], ['i', String(s)]], samples });
      }
      const a = await postWrite(base, series, { tenant });
      assert.ok(a.status >= 200 && a.status < 300, `write [${t}): ${a.status} ${a.text}`);
    }
  }
}

function ulids(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => /^[0-9A-Z]{26}$/.test(n)).sort() : [];
}

test('serve ships its blocks; kill -9 at random moments leaves each block in the bucket once and whole', async () => {
  const data = join(root, 'data');
  const bucket = join(root, 'bucket');
  mkdirSync(bucket, { recursive: true });
  const args = ['--label', 'region="eu-west"', '--objstore.config', `type: FILESYSTEM\nconfig:\n  directory: ${bucket}\n`];
  const next = rng(5);
  // First, a crash in the middle of an upload, on purpose: the process
  // kills itself once the second block's data is in the bucket and its
  // meta.json is not.
  const crashing = spawnServe({ dataDir: data, args, env: { STRATA_TEST_KILL_BEFORE_META: '2' } });
  const started = await crashing.line('strata started');
  const base = `http://127.0.0.1:${portOf(started.httpAddress)}`;
  await write(base, T0, T0 + 5 * HOUR).catch(() => undefined);
  const died = await Promise.race([exited(crashing.child), sleep(20_000).then(() => ({ code: null, signal: 'timeout' }))]);
  assert.equal(died.signal, 'SIGKILL', `the process stopped itself mid-upload:\n${crashing.stderr().slice(-3000)}`);
  const half = ulids(bucket).filter((u) => !existsSync(join(bucket, u, 'meta.json')));
  // Two when the next block's data had started (a pass overlaps one block's end with the next one's data).
  assert.ok(half.length === 1 || half.length === 2, `one block in the bucket without its meta.json, or two: ${half.join(', ')}`);
  assert.ok(half.some((u) => existsSync(join(bucket, u, 'index'))), 'the data of the block killed before its meta.json went first');
  let hour = 5;
  for (let round = 0; round < 4; round++) {
    const s: Served = await serveStrata(data, args);
    // 2.5 more hours: at least one more 2 h range closes and is cut, per tenant.
    await write(s.base, T0 + hour * HOUR, T0 + (hour + 2.5) * HOUR);
    hour += 2.5;
    await sleep(Math.floor(next() * 600));
    await s.proc.kill9();
  }
  // A last run that ends cleanly once everything is shipped.
  const s = await serveStrata(data, args);
  await waitFor(30_000, async () => {
    const text = await (await fetch(`${s.base}/metrics`)).text();
    const pending = /^strata_shipper_pending_blocks (\d+)/m.exec(text)?.[1];
    const local = ulids(join(data, 'blocks'));
    const shipped = ulids(bucket).filter((u) => existsSync(join(bucket, u, 'meta.json')));
    return pending === '0' && local.length > 0 && local.every((u) => shipped.includes(u)) ? true : undefined;
  }, () => `blocks not all shipped: local ${ulids(join(data, 'blocks')).join(',')}, bucket ${ulids(bucket).join(',')}`);
  assert.deepEqual(await s.proc.stop(), { code: 0, signal: null });

  const local = ulids(join(data, 'blocks'));
  assert.ok(local.length >= 8, `${local.length} blocks: several ranges for two tenants`);
  assert.deepEqual(ulids(bucket), local, 'the bucket holds exactly the local blocks, no more');
  const record = JSON.parse(readFileSync(join(data, 'thanos.shipper.json'), 'utf8')) as { version: number; uploaded: string[] };
  assert.equal(record.version, 1);
  assert.deepEqual([...record.uploaded].sort(), local);
  const tenants = new Set<string>();
  for (const u of local) {
    const meta = JSON.parse(readFileSync(join(bucket, u, 'meta.json'), 'utf8')) as {
      thanos: { labels: Record<string, string>; source: string; files: Array<{ rel_path: string; size_bytes?: number }> };
    };
    assert.equal(meta.thanos.source, 'receive');
    assert.equal(meta.thanos.labels.region, 'eu-west');
    tenants.add(meta.thanos.labels.tenant_id!);
    for (const f of meta.thanos.files.filter((x) => x.rel_path !== 'meta.json')) {
      assert.equal(statSync(join(bucket, u, f.rel_path)).size, f.size_bytes, `${u}/${f.rel_path} whole`);
      assert.deepEqual(readFileSync(join(bucket, u, f.rel_path)), readFileSync(join(data, 'blocks', u, f.rel_path)), `${u}/${f.rel_path} as local`);
    }
    // Nothing else of the block (a file left by an interrupted upload) is in the bucket.
    const inBucket = readdirSync(join(bucket, u), { recursive: true }).map(String).filter((p) => !statSync(join(bucket, u, p)).isDirectory()).sort();
    assert.deepEqual(inBucket, meta.thanos.files.map((f) => f.rel_path).sort());
  }
  assert.deepEqual([...tenants].sort(), ['default-tenant', 'team-a']);
});

test('a shipped block dumps (promtool) the same samples as the local one', { skip: havePromtool ? false : 'promtool not on PATH' }, () => {
  const data = join(root, 'data');
  const bucket = join(root, 'bucket');
  const [first] = ulids(bucket);
  assert.ok(first, 'the first test shipped blocks');
  const dump = (blocksFrom: string): string => {
    const d = mkdtempSync(join(root, 'dump-'));
    cpSync(join(blocksFrom, first), join(d, first), { recursive: true });
    mkdirSync(join(d, 'wal'));
    return execFileSync('promtool', ['tsdb', 'dump', d], { encoding: 'utf8', maxBuffer: 256 << 20 });
  };
  const shipped = dump(bucket);
  assert.ok(shipped.split('\n').length > 100, 'the block holds samples');
  assert.equal(shipped, dump(join(data, 'blocks')));
});
