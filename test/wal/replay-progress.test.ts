import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReplayProgress, Wal } from '../../src/wal/index.js';
import { memoryLog, payloadFor, tempDir } from './support/helpers.js';

const quiet = { fsyncIntervalMs: 60_000, segmentBytes: 4096 };

/** A WAL of a checkpoint (at `ckpt`) and the segments written after it; returns the last segment's number. */
async function walWithCheckpoint(dir: string): Promise<{ ckpt: number; last: number }> {
  const wal = await Wal.open({ dir, ...quiet }, () => {});
  for (let i = 0; i < 20; i++) wal.append(1, payloadFor(i, 1500));
  const ckpt = wal.roll();
  await wal.checkpoint(ckpt, [{ type: 2, payload: Buffer.from('kept') }]);
  for (let i = 0; i < 20; i++) wal.append(1, payloadFor(i, 1500));
  const last = wal.segment;
  await wal.close();
  return { ckpt, last };
}

describe('WAL replay progress', () => {
  test('counts the checkpoint and each segment as replayed, and logs a line per file as Prometheus does', async () => {
    const dir = tempDir();
    const { ckpt, last } = await walWithCheckpoint(dir);
    assert.ok(last - ckpt >= 3, `several segments after the checkpoint (${ckpt}..${last})`);
    const log = memoryLog();
    const progress = new ReplayProgress();
    // What the sink sees while a file is read: how many files were done before it.
    const doneAt = new Map<number, number>();
    const wal = await Wal.open({ dir, ...quiet, log, replayProgress: progress }, (_type, _payload, segment) => {
      assert.equal(progress.finished, false);
      if (!doneAt.has(segment)) doneAt.set(segment, progress.segmentsDone);
    });
    await wal.close();

    const files = last - ckpt + 2; // the checkpoint, then segments ckpt..last
    assert.equal(progress.segmentsTotal, files);
    assert.equal(progress.segmentsDone, files);
    assert.equal(progress.finished, true);
    assert.equal(doneAt.get(ckpt - 1), 0, 'the checkpoint is read first');
    for (let n = ckpt; n <= last; n++) assert.equal(doneAt.get(n), n - ckpt + 1, `segment ${n} comes after ${n - ckpt + 1} files`);

    const infos = log.lines.filter((l) => l.level === 'info');
    assert.equal(infos[0]?.msg, 'replaying the WAL, this may take a while');
    assert.deepEqual(infos[0]?.o.maxSegment, last);
    const loaded = infos.filter((l) => l.msg === 'WAL checkpoint loaded' || l.msg === 'WAL segment loaded');
    assert.equal(loaded.length, files);
    assert.deepEqual(loaded[0]?.o.checkpoint, ckpt);
    loaded.slice(1).forEach((l, i) => {
      assert.equal(l.msg, 'WAL segment loaded');
      assert.deepEqual([l.o.segment, l.o.maxSegment, l.o.done, l.o.total], [ckpt + i, last, i + 2, files]);
      assert.equal(typeof l.o.ms, 'number');
    });
  });

  test('an empty WAL directory has nothing to replay and logs no progress', async () => {
    const dir = tempDir();
    const log = memoryLog();
    const progress = new ReplayProgress();
    const wal = await Wal.open({ dir, ...quiet, log, replayProgress: progress }, () => {});
    await wal.close();
    assert.deepEqual([progress.segmentsTotal, progress.segmentsDone, progress.finished], [0, 0, true]);
    assert.equal(log.lines.some((l) => /WAL|replaying/.test(l.msg)), false);
  });

  test('a replay that fails still ends the progress (finished, files done so far)', async () => {
    const dir = tempDir();
    await walWithCheckpoint(dir);
    const progress = new ReplayProgress();
    await assert.rejects(Wal.open({ dir, ...quiet, replayProgress: progress }, () => {
      throw new Error('sink refused');
    }), /sink refused/);
    assert.equal(progress.finished, true);
    assert.equal(progress.segmentsDone, 0);
    assert.ok(progress.segmentsTotal > 1);
  });
});
