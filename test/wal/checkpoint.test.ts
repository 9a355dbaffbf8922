import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Wal, WalCorruptionError, WalError } from '../../src/wal/index.js';
import type { WalRecord } from '../../src/wal/index.js';
import { memoryLog, openCollect, payloadFor, replayAll, tempDir } from './support/helpers.js';

const quiet = { fsyncIntervalMs: 60_000 };

/** A WAL with records in segments 0..2 and appends going to 3. */
async function walWithHistory(dir: string): Promise<Wal> {
  const { wal } = await openCollect({ dir, segmentBytes: 4096, ...quiet });
  for (let i = 0; i < 30; i++) wal.append(1, payloadFor(i, 300));
  assert.ok(wal.segment >= 2);
  return wal;
}

const kept: WalRecord[] = [
  { type: 10, payload: Buffer.from('series a') },
  { type: 11, payload: [Buffer.from('series '), Buffer.from('b')] },
];

function files(dir: string): string[] {
  return readdirSync(dir).sort();
}

describe('WAL checkpoint', () => {
  test('replay yields the checkpoint records, then only the segments from its number on', async () => {
    const dir = tempDir();
    const wal = await walWithHistory(dir);
    const n = wal.roll();
    await wal.checkpoint(n, kept);
    wal.append(2, payloadFor(100, 50));
    wal.append(2, payloadFor(101, 50));
    assert.equal(wal.diskBytes(), files(dir).reduce((s, f) => s + statSync(join(dir, f)).size, 0));
    await wal.close();

    assert.deepEqual(files(dir), [`${String(n).padStart(8, '0')}`, `checkpoint.${String(n).padStart(8, '0')}`]);
    const replayed = await replayAll({ dir, ...quiet });
    assert.deepEqual(
      replayed.map((r) => [r.type, r.payload.toString('latin1'), r.segment]),
      [
        [10, 'series a', n - 1],
        [11, 'series b', n - 1],
        [2, payloadFor(100, 50).toString('latin1'), n],
        [2, payloadFor(101, 50).toString('latin1'), n],
      ],
    );
  });

  test('a checkpoint at the current segment is followed by all of that segment\'s records, earlier ones included', async () => {
    const dir = tempDir();
    const { wal } = await openCollect({ dir, segmentBytes: 4096, ...quiet });
    const segments = Array.from({ length: 30 }, (_, i) => wal.append(1, payloadFor(i, 300)));
    const n = wal.segment;
    const inCurrent = segments.flatMap((s, i) => (s === n ? [i] : []));
    assert.ok(inCurrent.length > 0 && inCurrent.length < 30);
    await wal.checkpoint(n, [{ type: 10, payload: Buffer.from('c') }]);
    wal.append(3, payloadFor(99, 10));
    await wal.close();
    const replayed = await replayAll({ dir, ...quiet });
    assert.deepEqual(
      replayed.map((r) => [r.type, r.type === 1 ? r.payload.readUInt32BE(0) : -1, r.segment]),
      [[10, -1, n - 1], ...inCurrent.map((i) => [1, i, n]), [3, -1, n]],
    );
  });

  test('a newer checkpoint replaces the older one; one older than the newest or past the current segment is refused', async () => {
    const dir = tempDir();
    const wal = await walWithHistory(dir);
    await wal.checkpoint(1, [{ type: 10, payload: Buffer.from('old') }]);
    await wal.checkpoint(2, [{ type: 10, payload: Buffer.from('new') }]);
    const bad = (e: unknown) => e instanceof WalError && e.reason === 'bad-checkpoint';
    await assert.rejects(wal.checkpoint(1, []), bad);
    await assert.rejects(wal.checkpoint(wal.segment + 1, []), bad);
    await assert.rejects(wal.checkpoint(-1, []), bad);
    await wal.close();
    assert.ok(!files(dir).includes('checkpoint.00000001'));
    const replayed = await replayAll({ dir, ...quiet });
    assert.equal(replayed[0]?.payload.toString(), 'new');
    assert.ok(replayed.slice(1).every((r) => r.segment >= 2));
  });

  test('records may come from an async iterator that reuses one buffer, and may exceed the staging buffer', async () => {
    const dir = tempDir();
    const wal = await walWithHistory(dir);
    const big = payloadFor(5, 3 * 1024 * 1024);
    async function* records(): AsyncGenerator<WalRecord> {
      const one = Buffer.alloc(4);
      for (let i = 0; i < 5000; i++) {
        one.writeUInt32BE(i);
        yield { type: 20, payload: one };
        if (i === 2500) yield { type: 21, payload: big };
      }
    }
    await wal.checkpoint(wal.roll(), records());
    await wal.close();
    const replayed = (await replayAll({ dir, ...quiet })).filter((r) => r.type >= 20);
    assert.equal(replayed.length, 5001);
    assert.deepEqual(replayed.filter((r) => r.type === 20).map((r) => r.payload.readUInt32BE(0)), Array.from({ length: 5000 }, (_, i) => i));
    assert.ok(replayed[2501]?.payload.equals(big));
  });

  test('a checkpoint whose records fail leaves no file behind and the WAL as it was', async () => {
    const dir = tempDir();
    const wal = await walWithHistory(dir);
    const before = files(dir);
    function* records(): Generator<WalRecord> {
      yield { type: 10, payload: Buffer.from('x') };
      yield { type: 0, payload: Buffer.from('bad') };
    }
    await assert.rejects(wal.checkpoint(wal.segment, records()), (e: unknown) => e instanceof WalError && e.reason === 'bad-record-type');
    assert.deepEqual(files(dir), before);
    wal.append(1, payloadFor(1, 10));
    await wal.close();
    assert.equal((await replayAll({ dir, ...quiet })).length, 31);
  });

  test('open removes what a crash left: a half-written checkpoint, older checkpoints, segments the newest covers', async () => {
    const dir = tempDir();
    const wal = await walWithHistory(dir);
    const saved = files(dir).map((f) => [f, readFileSync(join(dir, f))] as const);
    await wal.checkpoint(1, [{ type: 10, payload: Buffer.from('one') }]);
    const ckpt1 = readFileSync(join(dir, 'checkpoint.00000001'));
    const n = wal.roll();
    await wal.checkpoint(n, kept);
    wal.append(2, payloadFor(300, 30));
    await wal.close();
    const expected = await replayAll({ dir, ...quiet });

    // As if the crash came before the clean-up of older files, and during a later checkpoint.
    for (const [f, bytes] of saved) if (!existsSync(join(dir, f))) writeFileSync(join(dir, f), bytes);
    writeFileSync(join(dir, 'checkpoint.00000001'), ckpt1);
    writeFileSync(join(dir, `checkpoint.${String(n + 1).padStart(8, '0')}.tmp`), Buffer.from('half a checkpoint'));
    const log = memoryLog();
    const replayed = await replayAll({ dir, log, ...quiet });
    assert.deepEqual(replayed, expected);
    const removed = log.lines.filter((l) => l.level === 'info' && typeof l.o['file'] === 'string').map((l) => String(l.o['file']));
    assert.ok(removed.some((f) => f.endsWith('.tmp')));
    assert.ok(removed.some((f) => f.endsWith('checkpoint.00000001')));
    assert.ok(removed.some((f) => f.endsWith('00000000')));
    assert.ok(files(dir).every((f) => !f.endsWith('.tmp') && f !== 'checkpoint.00000001' && f >= String(n).padStart(8, '0')), files(dir).join());
  });

  test('a damaged or truncated checkpoint loses its damaged record only, reported with file and offset', async () => {
    for (const damage of ['flip', 'cut'] as const) {
      const dir = tempDir();
      const wal = await walWithHistory(dir);
      const n = wal.roll();
      await wal.checkpoint(n, kept);
      await wal.close();
      const file = join(dir, `checkpoint.${String(n).padStart(8, '0')}`);
      const size = statSync(file).size;
      if (damage === 'cut') truncateSync(file, size - 1);
      else {
        const b = readFileSync(file);
        b[size - 1] = (b[size - 1] ?? 0) ^ 1;
        writeFileSync(file, b);
      }
      const secondRecord = 16 + 13 + 'series a'.length;
      const { wal: reopened, records } = await openCollect({ dir, ...quiet });
      assert.deepEqual(reopened.damaged.map((d) => [d.file, d.offset]), [[file, secondRecord]]);
      // The first checkpoint record, then the segments after it.
      assert.equal(records[0]!.payload.toString(), 'series a');
      assert.ok(!records.some((r) => r.payload.toString() === 'series b'));
      await reopened.close();
    }
  });

  test('an open past a damaged checkpoint still removes what a crash left', async () => {
    const dir = tempDir();
    const wal = await walWithHistory(dir);
    const n = wal.roll();
    await wal.checkpoint(n, kept);
    await wal.close();
    writeFileSync(join(dir, 'checkpoint.00000000.tmp'), 'half');
    const file = join(dir, `checkpoint.${String(n).padStart(8, '0')}`);
    truncateSync(file, statSync(file).size - 1);
    const { wal: reopened } = await openCollect({ dir, ...quiet });
    assert.equal(reopened.damaged.length, 1);
    assert.ok(!files(dir).includes('checkpoint.00000000.tmp'));
    await reopened.close();
  });
});
