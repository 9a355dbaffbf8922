import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { rng } from '../support/series.js';
import { Wal, WalError } from '../../src/wal/index.js';
import { openCollect, payloadFor, replayAll, segmentFiles, tempDir } from './support/helpers.js';

const quiet = { fsyncIntervalMs: 60_000 };

describe('WAL round trip', () => {
  test('replays many records across several segment rolls in append order, with their segments', async () => {
    const dir = tempDir();
    const next = rng(7);
    const { wal } = await openCollect({ dir, segmentBytes: 4096, ...quiet });
    const written: Array<{ type: number; payload: Buffer; segment: number }> = [];
    for (let i = 0; i < 400; i++) {
      const type = 1 + Math.floor(next() * 255);
      const payload = payloadFor(i, Math.floor(next() * 1500));
      const segment = wal.append(type, payload);
      assert.equal(segment, wal.segment);
      written.push({ type, payload, segment });
    }
    await wal.close();
    const segments = written.map((w) => w.segment);
    assert.deepEqual(segments, [...segments].sort((a, b) => a - b), 'segment numbers never go down');
    assert.ok(wal.segment >= 5, `rolled several times (last segment ${wal.segment})`);
    for (const name of segmentFiles(dir)) assert.ok(statSync(join(dir, name)).size <= 4096, `${name} stays within segmentBytes`);

    const replayed = await replayAll({ dir, ...quiet });
    assert.equal(replayed.length, written.length);
    replayed.forEach((r, i) => assert.deepEqual(r, written[i], `record ${i}`));
  });

  test('a payload given as parts is replayed as one record of their concatenation', async () => {
    const dir = tempDir();
    const { wal } = await openCollect({ dir, ...quiet });
    const parts = [Buffer.from('head'), new Uint8Array(0), new Uint8Array([1, 2, 3]), payloadFor(9, 5000).subarray(100)];
    wal.append(3, parts);
    wal.append(4, new Uint8Array(0));
    await wal.close();
    const [a, b, ...rest] = await replayAll({ dir, ...quiet });
    assert.deepEqual(a?.payload, Buffer.concat(parts));
    assert.equal(a?.type, 3);
    assert.deepEqual(b?.payload, Buffer.alloc(0), 'an empty payload is a record too');
    assert.equal(rest.length, 0);
  });

  test('a record larger than the segment size gets a segment of its own', async () => {
    const dir = tempDir();
    const { wal } = await openCollect({ dir, segmentBytes: 4096, ...quiet });
    const s1 = wal.append(1, payloadFor(1, 100));
    const s2 = wal.append(1, payloadFor(2, 10_000));
    const s3 = wal.append(1, payloadFor(3, 100));
    await wal.close();
    assert.deepEqual([s2 - s1, s3 - s2], [1, 1]);
    assert.deepEqual((await replayAll({ dir, ...quiet })).map((r) => r.payload.readUInt32BE(0)), [1, 2, 3]);
  });

  test('appends after a reopen go to a new segment and follow the old records', async () => {
    const dir = tempDir();
    let { wal } = await openCollect({ dir, ...quiet });
    const first = wal.append(1, payloadFor(1, 10));
    await wal.close();
    ({ wal } = await openCollect({ dir, ...quiet }));
    assert.equal(wal.segment, first + 1);
    wal.append(2, payloadFor(2, 10));
    await wal.close();
    const replayed = await replayAll({ dir, ...quiet });
    assert.deepEqual(replayed.map((r) => [r.type, r.segment]), [[1, first], [2, first + 1]]);
  });

  test('rejects record types outside 1..255 and writes nothing', async () => {
    const dir = tempDir();
    const { wal } = await openCollect({ dir, ...quiet });
    const before = wal.diskBytes();
    for (const type of [0, 256, -1, 1.5, Number.NaN]) {
      assert.throws(() => wal.append(type, new Uint8Array(1)), (e: unknown) => e instanceof WalError && e.reason === 'bad-record-type');
    }
    assert.equal(wal.diskBytes(), before);
    await wal.close();
    assert.deepEqual(await replayAll({ dir, ...quiet }), []);
  });

  test('roll starts a new segment only when the open one holds a record', async () => {
    const dir = tempDir();
    const { wal } = await openCollect({ dir, ...quiet });
    const s = wal.segment;
    assert.equal(wal.roll(), s);
    wal.append(1, new Uint8Array(4));
    assert.equal(wal.roll(), s + 1);
    assert.equal(wal.segment, s + 1);
    await wal.close();
  });

  test('diskBytes counts every segment byte, headers included', async () => {
    const dir = tempDir();
    const { wal } = await openCollect({ dir, segmentBytes: 4096, ...quiet });
    for (let i = 0; i < 50; i++) wal.append(1, payloadFor(i, 300));
    await wal.sync();
    const onDisk = segmentFiles(dir).reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
    assert.equal(wal.diskBytes(), onDisk);
    await wal.close();
  });

  test('refuses appends, rolls and checkpoints once closed; close twice is fine', async () => {
    const dir = tempDir();
    const wal = await Wal.open({ dir, ...quiet }, () => {});
    await wal.close();
    await wal.close();
    const closed = (e: unknown) => e instanceof WalError && e.reason === 'closed';
    assert.throws(() => wal.append(1, new Uint8Array(1)), closed);
    assert.throws(() => wal.roll(), closed);
    await assert.rejects(wal.checkpoint(0, []), closed);
  });
});
