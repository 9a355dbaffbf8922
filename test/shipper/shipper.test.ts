// The shipper (issue 12): Strata's level-1 blocks uploaded to a bucket in
// Thanos' layout, once, with thanos.shipper.json as Thanos writes it; one
// block per tenant with the tenant in the Thanos labels; retention keeps
// blocks not shipped; a half-done upload is done again whole.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BlockReader } from '../../src/blocks/block-reader.js';
import type { Db } from '../../src/db/db.js';
import { FilesystemBucket } from '../../src/objstore/filesystem.js';
import { Shipper } from '../../src/shipper/shipper.js';
import { batchBuilder, openSmallDb, samples, tempDir } from '../support/db.js';

const tmp = tempDir('strata-shipper-');
after(() => tmp.remove());
const HOUR = 3_600_000;
const silent = { info() {}, warn() {}, error() {} };

/** Writes `hours` of one sample a minute for series of two tenants, oldest first. */
function ingest(db: Db, fromHour: number, hours: number): void {
  for (let m = fromHour * 60; m < (fromHour + hours) * 60; m += 10) {
    const ts = Array.from({ length: 10 }, (_, k) => (m + k) * 60_000);
    for (const tenant of ['default-tenant', 'team-a']) {
      const b = batchBuilder(['tenant_id', tenant]);
      for (let s = 0; s < 5; s++) b.add(['__name__', 'up', 'job', `j${s}`], ...samples(ts, ts.map((t) => t / 1000 + s)));
      db.append(b.finish());
    }
  }
}

function bucketBlocks(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => /^[0-9A-Z]{26}$/.test(n)).sort() : [];
}

test('each level-1 block goes to the bucket in Thanos layout, once, with the tenant in its labels', async () => {
  const dir = join(tmp.dir, 'ship');
  const bucketDir = join(tmp.dir, 'bucket');
  const bucket = new FilesystemBucket(bucketDir);
  let shipper: Shipper | undefined;
  const db = await openSmallDb(dir, {
    compaction: false, blockLabels: { region: 'eu-west' }, blockPerTenant: 'tenant_id',
    onBlocks: () => shipper?.trigger(), mayDelete: (u) => shipper?.isShipped(u) ?? false,
  });
  shipper = new Shipper({ bucket, blocksDir: join(dir, 'blocks'), metaDir: dir, ship: () => ({ labels: { region: 'eu-west' }, source: 'receive' }), log: silent });
  await shipper.start();
  ingest(db, 0, 7);
  await db.settle();
  await shipper.syncNow();
  const local = readdirSync(join(dir, 'blocks')).filter((n) => /^[0-9A-Z]{26}$/.test(n)).sort();
  assert.ok(local.length >= 4, `${local.length} local blocks: two 2 h ranges, two tenants`);
  assert.deepEqual(bucketBlocks(bucketDir), local);
  for (const ulid of local) {
    const meta = JSON.parse(readFileSync(join(bucketDir, ulid, 'meta.json'), 'utf8')) as {
      thanos: { labels: Record<string, string>; source: string; segment_files: string[]; files: Array<{ rel_path: string; size_bytes?: number }>; upload_time: string; downsample: { resolution: number } };
      compaction: { level: number };
    };
    const localMeta = JSON.parse(readFileSync(join(dir, 'blocks', ulid, 'meta.json'), 'utf8')) as { thanos: { labels: Record<string, string> } };
    assert.equal(meta.compaction.level, 1);
    assert.equal(meta.thanos.source, 'receive');
    assert.equal(meta.thanos.downsample.resolution, 0);
    assert.deepEqual(meta.thanos.labels, localMeta.thanos.labels);
    assert.equal(meta.thanos.labels.region, 'eu-west');
    assert.match(meta.thanos.labels.tenant_id ?? '', /^(default-tenant|team-a)$/);
    assert.deepEqual(meta.thanos.segment_files, ['000001']);
    assert.deepEqual(meta.thanos.files.map((f) => f.rel_path), ['chunks/000001', 'index', 'meta.json']);
    for (const f of meta.thanos.files.filter((x) => x.rel_path !== 'meta.json')) {
      assert.equal(f.size_bytes, statSync(join(dir, 'blocks', ulid, f.rel_path)).size, `${ulid}/${f.rel_path} size`);
      assert.deepEqual(readFileSync(join(bucketDir, ulid, f.rel_path)), readFileSync(join(dir, 'blocks', ulid, f.rel_path)), `${ulid}/${f.rel_path} bytes`);
    }
    assert.match(meta.thanos.upload_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    assert.equal(existsSync(join(bucketDir, ulid, 'tombstones')), false, 'Thanos does not upload tombstones');
    // Each tenant's block holds only that tenant's series.
    const b = BlockReader.open(join(dir, 'blocks', ulid));
    assert.deepEqual(b.index.labelValues('tenant_id'), [meta.thanos.labels.tenant_id]);
  }
  // thanos.shipper.json, as Thanos writes it.
  const record = readFileSync(join(dir, 'thanos.shipper.json'), 'utf8');
  assert.equal(record, `{\n\t"version": 1,\n\t"uploaded": [\n${local.map((u) => `\t\t"${u}"`).join(',\n')}\n\t]\n}\n`);
  assert.equal(shipper.counters.uploads, local.length);
  // A second pass, and a new shipper after a restart, upload nothing again.
  await shipper.syncNow();
  const again = new Shipper({ bucket, blocksDir: join(dir, 'blocks'), metaDir: dir, ship: () => ({ labels: { region: 'eu-west' }, source: 'receive' }), log: silent });
  await again.start();
  await again.syncNow();
  assert.equal(shipper.counters.uploads + again.counters.uploads, local.length);
  await again.stop();
  await shipper.stop();
  await db.close();
});

test('a block half uploaded (no meta.json in the bucket) is uploaded again whole; one whose meta.json is there is only recorded', async () => {
  const dir = join(tmp.dir, 'resume');
  const bucketDir = join(tmp.dir, 'bucket-resume');
  const bucket = new FilesystemBucket(bucketDir);
  const db = await openSmallDb(dir, { compaction: false, blockLabels: { region: 'eu-west' }, blockPerTenant: 'tenant_id' });
  ingest(db, 0, 7);
  await db.settle();
  await db.close();
  const local = readdirSync(join(dir, 'blocks')).filter((n) => /^[0-9A-Z]{26}$/.test(n)).sort();
  // Every block whole in the bucket, as after uploads that ended before a
  // crash kept them from being recorded (the record is written elsewhere here)...
  const first = new Shipper({ bucket, blocksDir: join(dir, 'blocks'), metaDir: join(tmp.dir, 'elsewhere'), ship: () => ({ labels: { region: 'eu-west' }, source: 'receive' }), log: silent });
  mkdirSync(join(tmp.dir, 'elsewhere'), { recursive: true });
  await first.start();
  await first.syncNow();
  await first.stop();
  // ...but the first one's meta.json, as after a crash in the middle of its upload.
  rmSync(join(bucketDir, local[0]!, 'meta.json'));
  const s = new Shipper({ bucket, blocksDir: join(dir, 'blocks'), metaDir: dir, ship: () => ({ labels: { region: 'eu-west' }, source: 'receive' }), log: silent });
  await s.start();
  await s.syncNow();
  assert.equal(s.counters.uploads, 1, 'only the block without meta.json is uploaded');
  assert.deepEqual(bucketBlocks(bucketDir), local);
  for (const ulid of local) assert.ok(existsSync(join(bucketDir, ulid, 'meta.json')), `${ulid}/meta.json`);
  assert.deepEqual((JSON.parse(readFileSync(join(dir, 'thanos.shipper.json'), 'utf8')) as { uploaded: string[] }).uploaded, local);
  await s.stop();
});

test('retention keeps a block until it is shipped, and deletes it once it is', async () => {
  const dir = join(tmp.dir, 'keep');
  const shipped = new Set<string>();
  const db = await openSmallDb(dir, { compaction: false, retentionMs: 3 * HOUR, blockPerTenant: 'tenant_id', blockLabels: {}, mayDelete: (u) => shipped.has(u) });
  ingest(db, 0, 10);
  await db.settle();
  await db.maintain();
  const blocks = readdirSync(join(dir, 'blocks')).filter((n) => /^[0-9A-Z]{26}$/.test(n));
  const old = blocks.filter((u) => JSON.parse(readFileSync(join(dir, 'blocks', u, 'meta.json'), 'utf8')).maxTime - 1 < db.maxTime - 3 * HOUR);
  assert.ok(old.length > 0, 'blocks past retention are kept while not shipped');
  assert.equal(db.counters.blocksDeletedByTime, 0);
  for (const u of old) shipped.add(u);
  await db.maintain();
  const left = readdirSync(join(dir, 'blocks')).filter((n) => /^[0-9A-Z]{26}$/.test(n));
  for (const u of old) assert.ok(!left.includes(u), `${u} deleted once shipped`);
  await db.close();
});
