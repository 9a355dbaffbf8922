// A block's data files go up two at a time; meta.json only once all of
// them are up; a failed data file means no meta.json and no new uploads.
// A shipper pass sends the next block's data while the block before
// finishes, meta.json files still in block order.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BlockMeta } from '../../src/blocks/types.js';
import type { Bucket } from '../../src/objstore/bucket.js';
import { FilesystemBucket } from '../../src/objstore/filesystem.js';
import { Shipper } from '../../src/shipper/shipper.js';
import { uploadBlock } from '../../src/shipper/upload.js';
import { BLOCK_FILES_IN_FLIGHT, FileLanes } from '../../src/shipper/upload-files.js';
import { tempDir } from '../support/db.js';

const tmp = tempDir('strata-upload-files-');
after(() => tmp.remove());

/**
 * A FILESYSTEM bucket that records when each upload starts and ends, holds
 * each file upload until the test lets it go, and fails the names asked.
 */
class GatedBucket {
  readonly events: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private held: Array<{ name: string; go: () => void }> = [];
  constructor(readonly inner: FilesystemBucket, private readonly failing = new Set<string>()) {}

  /**
   * Lets held uploads go on, at each turn those `keep` does not name,
   * until `work` settles; after a bound, all of them.
   */
  async releaseUntil(work: Promise<unknown>, keep: (name: string) => boolean = () => false): Promise<unknown> {
    let settled = false;
    const out = work.then(() => undefined, (err: unknown) => err).finally(() => {
      settled = true;
    });
    for (let i = 0; !settled; i++) {
      const go = i >= 5_000 ? this.held : this.held.filter((h) => !keep(h.name));
      this.held = this.held.filter((h) => !go.includes(h));
      go.forEach((h) => h.go());
      await new Promise((r) => setTimeout(r, 1));
    }
    return out;
  }

  asBucket(): Bucket {
    const self = this;
    return {
      name: 'gated',
      async uploadFile(name, path) {
        self.events.push(`start ${name}`);
        self.inFlight++;
        self.maxInFlight = Math.max(self.maxInFlight, self.inFlight);
        try {
          await new Promise<void>((go) => self.held.push({ name, go }));
          if (self.failing.has(name)) throw new Error(`refused ${name}`);
          await self.inner.uploadFile(name, path);
        } finally {
          self.inFlight--;
          self.events.push(`end ${name}`);
        }
      },
      async upload(name, bytes) {
        self.events.push(`start ${name}`);
        await self.inner.upload(name, bytes);
        self.events.push(`end ${name}`);
      },
      get: (n) => self.inner.get(n),
      exists: (n) => self.inner.exists(n),
      size: (n) => self.inner.size(n),
      iter: (d, o) => self.inner.iter(d, o),
      delete: (n) => self.inner.delete(n),
      dropPartial: (d) => self.inner.dropPartial(d),
      close: () => self.inner.close(),
    };
  }
}

const ULID = '01JDZ0000000000000000000AA';

function writeBlock(dir: string, segments: number, ulid = ULID, minTime = 0): BlockMeta {
  mkdirSync(join(dir, 'chunks'), { recursive: true });
  for (let i = 1; i <= segments; i++) writeFileSync(join(dir, 'chunks', String(i).padStart(6, '0')), Buffer.alloc(1000 + i, i));
  writeFileSync(join(dir, 'index'), Buffer.alloc(500, 0xee));
  const meta: BlockMeta = {
    ulid, minTime, maxTime: minTime + 7_200_000, version: 1,
    stats: { numSamples: 10, numSeries: 1, numChunks: segments },
    compaction: { level: 1, sources: [ulid] },
  };
  writeFileSync(join(dir, 'meta.json'), JSON.stringify(meta));
  return meta;
}

test('a block\'s data files go up at most two at a time, and meta.json only after every one of them ended', async () => {
  const dir = join(tmp.dir, 'ordered', ULID);
  const meta = writeBlock(dir, 4);
  const gated = new GatedBucket(new FilesystemBucket(join(tmp.dir, 'ordered-bucket')));
  assert.equal(await gated.releaseUntil(uploadBlock(gated.asBucket(), dir, meta, { labels: { a: 'b' }, source: 'sidecar' })), undefined);
  assert.equal(BLOCK_FILES_IN_FLIGHT, 2);
  assert.equal(gated.maxInFlight, 2, 'two data files overlap');
  const metaStart = gated.events.indexOf(`start ${ULID}/meta.json`);
  const dataEnds = gated.events.map((e, i) => (e.startsWith('end ') && !e.endsWith('meta.json') ? i : -1)).filter((i) => i >= 0);
  assert.equal(dataEnds.length, 5, 'four segments and the index');
  assert.ok(dataEnds.every((i) => i < metaStart), `meta.json starts after every data file ended: ${gated.events.join(', ')}`);
  for (const rel of ['chunks/000001', 'chunks/000004', 'index', 'meta.json']) assert.ok(existsSync(join(tmp.dir, 'ordered-bucket', ULID, rel)), rel);
});

test('a data file that fails: no more files are started, those in flight end, no meta.json, and the first error is thrown', async () => {
  const dir = join(tmp.dir, 'failing', ULID);
  const meta = writeBlock(dir, 4);
  const bucketDir = join(tmp.dir, 'failing-bucket');
  const gated = new GatedBucket(new FilesystemBucket(bucketDir), new Set([`${ULID}/chunks/000001`]));
  const err = await gated.releaseUntil(uploadBlock(gated.asBucket(), dir, meta, { labels: { a: 'b' }, source: 'sidecar' }));
  assert.match(String(err), /refused .*chunks\/000001/);
  assert.equal(gated.inFlight, 0, 'nothing still uploading once it threw');
  const started = gated.events.filter((e) => e.startsWith('start '));
  // 000001 and 000002 start together; 000002 ends after 000001 failed, so nothing more starts.
  assert.deepEqual(started, [`start ${ULID}/chunks/000001`, `start ${ULID}/chunks/000002`]);
  assert.equal(existsSync(join(bucketDir, ULID, 'meta.json')), false);
});

test('FileLanes refuses a count in flight that is not a positive integer', () => {
  const bucket = new FilesystemBucket(join(tmp.dir, 'none'));
  assert.throws(() => new FileLanes(bucket, 0), /positive integer/);
  assert.throws(() => new FileLanes(bucket, 1.5), /positive integer/);
});

const B1 = '01JDZ0000000000000000000B1';
const B2 = '01JDZ0000000000000000000B2';
const B3 = '01JDZ0000000000000000000B3';
const silent = { info() {}, warn() {}, error() {} };

function shipperOver(name: string, failing?: Set<string>, uploadConcurrency?: number): { gated: GatedBucket; shipper: Shipper; bucketDir: string } {
  const blocksDir = join(tmp.dir, name, 'blocks');
  [B1, B2, B3].forEach((u, i) => writeBlock(join(blocksDir, u), 1, u, i * 7_200_000));
  const bucketDir = join(tmp.dir, `${name}-bucket`);
  const gated = new GatedBucket(new FilesystemBucket(bucketDir), failing);
  const shipper = new Shipper({ bucket: gated.asBucket(), blocksDir, metaDir: join(tmp.dir, name), ship: () => ({ labels: { a: 'b' }, source: 'sidecar' }), log: silent, intervalMs: 3_600_000,
    ...(uploadConcurrency === undefined ? {} : { uploadConcurrency }) });
  return { gated, shipper, bucketDir };
}

test('a pass sends the next block\'s data while the block before finishes, two files at most, meta.json files in block order', async () => {
  const { gated, shipper, bucketDir } = shipperOver('pipelined');
  // B1's segment is held until B2's has started: only a pass that overlaps blocks gets on.
  const err = await gated.releaseUntil(shipper.syncNow(), (name) => name === `${B1}/chunks/000001` && !gated.events.includes(`start ${B2}/chunks/000001`));
  await shipper.stop();
  assert.equal(err, undefined);
  const at = (e: string) => gated.events.indexOf(e);
  assert.ok(at(`start ${B2}/chunks/000001`) >= 0 && at(`start ${B2}/chunks/000001`) < at(`end ${B1}/chunks/000001`), `B2's data starts before B1's ends: ${gated.events.join(', ')}`);
  assert.ok(at(`start ${B1}/meta.json`) < at(`start ${B2}/meta.json`) && at(`start ${B2}/meta.json`) < at(`start ${B3}/meta.json`), 'meta.json files in block order');
  for (const u of [B1, B2, B3]) assert.ok(at(`end ${u}/index`) < at(`start ${u}/meta.json`), `${u}: meta.json after its data`);
  assert.ok(gated.maxInFlight <= 2, `${gated.maxInFlight} files in flight`);
  assert.equal(shipper.counters.uploads, 3);
  for (const u of [B1, B2, B3]) assert.ok(existsSync(join(bucketDir, u, 'meta.json')), u);
});

test('a block that fails in a pass: the block after it keeps its data up but not its meta.json, counted pending, not failed', async () => {
  const { gated, shipper, bucketDir } = shipperOver('held-back', new Set([`${B1}/chunks/000001`]));
  // B1's segment fails only once B2's data has started.
  await gated.releaseUntil(shipper.syncNow(), (name) => name === `${B1}/chunks/000001` && !gated.events.includes(`start ${B2}/chunks/000001`));
  await shipper.stop();
  assert.equal(shipper.counters.uploads, 0);
  assert.equal(shipper.counters.uploadFailures, 1, 'only B1 failed');
  assert.equal(shipper.pending, 3, 'B1, B2 (held back) and B3 wait for the next pass');
  assert.equal(gated.inFlight, 0, 'nothing still uploading after the pass');
  for (const u of [B1, B2, B3]) assert.equal(existsSync(join(bucketDir, u, 'meta.json')), false, u);
  assert.equal(gated.events.some((e) => e.startsWith(`start ${B3}/`)), false, 'B3 not started');
});

test('uploadConcurrency 0 (Thanos\' default, --shipper.upload-concurrency) and 1 send one file at a time', async () => {
  for (const n of [0, 1]) {
    const { gated, shipper, bucketDir } = shipperOver(`one-at-a-time-${n}`, undefined, n);
    const err = await gated.releaseUntil(shipper.syncNow());
    await shipper.stop();
    assert.equal(err, undefined);
    assert.equal(gated.maxInFlight, 1, `${n}: one file in flight`);
    assert.equal(shipper.counters.uploads, 3);
    for (const u of [B1, B2, B3]) assert.ok(existsSync(join(bucketDir, u, 'meta.json')), u);
  }
});
