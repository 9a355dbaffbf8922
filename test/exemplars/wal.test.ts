// Exemplars survive a restart: logged to the WAL as they are stored,
// replayed on open, carried by checkpoints for the series still in the head.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Db } from '../../src/db/db.js';
import { ExemplarBatchBuilder } from '../../src/record/exemplar-batch.js';
import { exemplarLabelsOf } from '../../src/exemplars/exemplar-store.js';
import { compareLabels } from '../../src/index/index.js';
import { batchBuilder, openSmallDb, tempDir } from '../support/db.js';

const dirs: Array<() => void> = [];
after(() => dirs.forEach((remove) => remove()));

const canonical = (labels: readonly string[]): Uint8Array => Buffer.concat(labels.map((s) => Buffer.concat([Buffer.from(s, 'utf8'), Buffer.from([0xff])])));

/** An exemplar batch as the parser makes one: [series labels, exemplar labels, ts, value] each. */
function exemplarBatch(items: Array<[string[], string[], number, number]>): ArrayBuffer {
  const s = new ExemplarBatchBuilder();
  const f64 = new Float64Array(1);
  const i32 = new Int32Array(f64.buffer);
  for (const [series, labels, ts, value] of items) {
    const sb = canonical(series);
    const off = s.putLabels(sb, 0, sb.length);
    const lb = canonical(labels);
    s.reserveLabels(lb.length);
    s.labels.set(lb, s.l);
    const exOff = s.l;
    s.l += lb.length;
    f64[0] = value;
    s.add(ts, 0, i32[0]!, i32[1]!, off, sb.length, exOff, lb.length);
  }
  return s.finish()!;
}

function samples(db: Db, labels: string[], ts: number[]): void {
  const b = batchBuilder();
  b.add(labels, BigInt64Array.from(ts, BigInt), Float64Array.from(ts, () => 1));
  db.append(b.finish());
}

function held(db: Db): string[] {
  return db.exemplars.select(-Infinity, Infinity, () => true, compareLabels)
    .flatMap((r) => r.exemplars.map((e) => `${r.seriesLabels.join(',')} ${exemplarLabelsOf(e.labelsKey).join(',')}@${e.ts}`));
}

const A = ['__name__', 'rpc_bucket', 'le', '0.5'];
const B = ['__name__', 'rpc_bucket', 'le', '1'];

describe('exemplars in the WAL', () => {
  test('stored exemplars come back after a restart without a checkpoint (as after kill -9)', async () => {
    const { dir, remove } = tempDir();
    dirs.push(remove);
    let db = await openSmallDb(dir);
    samples(db, A, [1000, 2000]);
    samples(db, B, [1000]);
    const r = db.appendExemplars(exemplarBatch([[A, ['trace_id', 'a1'], 1000, 0.3], [A, ['trace_id', 'a2'], 2000, 0.4], [B, ['trace_id', 'b1'], 1000, 0.9]]));
    assert.deepEqual(r, { written: 3, outOfOrder: 0, tooLong: 0, unknownSeries: 0 });
    const before = held(db);
    await db.close({ flush: false });
    db = await openSmallDb(dir);
    assert.deepEqual(held(db), before);
    assert.equal(before.length, 3);
    await db.close();
  });

  test('a checkpoint (a graceful stop flushes one) carries the exemplars of live series', async () => {
    const { dir, remove } = tempDir();
    dirs.push(remove);
    let db = await openSmallDb(dir);
    samples(db, A, [1000]);
    db.appendExemplars(exemplarBatch([[A, ['trace_id', 'x'], 1000, 1]]));
    await db.close();
    db = await openSmallDb(dir);
    assert.deepEqual(held(db), ['__name__,rpc_bucket,le,0.5 trace_id,x@1000']);
    // And once more: the checkpoint written by this close carries them again.
    await db.close();
    db = await openSmallDb(dir);
    assert.deepEqual(held(db), ['__name__,rpc_bucket,le,0.5 trace_id,x@1000']);
    await db.close();
  });

  test('exemplars of series the head does not hold are dropped (unknownSeries), out-of-order ones refused, none logged', async () => {
    const { dir, remove } = tempDir();
    dirs.push(remove);
    let db = await openSmallDb(dir);
    samples(db, A, [1000]);
    const r = db.appendExemplars(exemplarBatch([[B, ['trace_id', 'b'], 1000, 1], [A, ['trace_id', 'a'], 1000, 1], [A, ['trace_id', 'old'], 900, 1]]));
    assert.equal(r.written, 1);
    assert.equal(r.unknownSeries, 1);
    assert.equal(r.outOfOrder, 1);
    assert.match(r.firstOutOfOrder!, /^\{__name__="rpc_bucket", le="0\.5"\} at 900$/);
    await db.close({ flush: false });
    db = await openSmallDb(dir);
    assert.deepEqual(held(db), ['__name__,rpc_bucket,le,0.5 trace_id,a@1000']);
    await db.close();
  });

  test('with --tsdb.max-exemplars 0 exemplars are accepted (written, as Prometheus counts them) and kept nowhere', async () => {
    const { dir, remove } = tempDir();
    dirs.push(remove);
    const db = await openSmallDb(dir, { maxExemplars: 0 });
    samples(db, A, [1000]);
    assert.equal(db.appendExemplars(exemplarBatch([[A, ['trace_id', 'a'], 1000, 1]])).written, 1);
    assert.deepEqual(held(db), []);
    await db.close();
  });

  test('a smaller store on restart keeps the newest exemplars', async () => {
    const { dir, remove } = tempDir();
    dirs.push(remove);
    let db = await openSmallDb(dir);
    samples(db, A, [1000]);
    db.appendExemplars(exemplarBatch([1, 2, 3, 4].map((i) => [A, ['trace_id', `t${i}`], 1000 + i, 1] as [string[], string[], number, number])));
    await db.close({ flush: false });
    db = await openSmallDb(dir, { maxExemplars: 2 });
    assert.deepEqual(held(db).map((h) => h.split(' ')[1]), ['trace_id,t3@1003', 'trace_id,t4@1004']);
    await db.close();
  });
});
