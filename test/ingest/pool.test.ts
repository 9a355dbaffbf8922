import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { CodecPool } from '../../src/pool/codec-pool.js';
import { MalformedRequestError } from '../../src/errors/errors.js';
import { parseWriteInPool, recycleBatch, recycleHistogramBatch } from '../../src/ingest/parse-task.js';
import { batchBuffers, bodyBuffers, histogramBatchBuffers } from '../../src/pool/spare-buffers.js';
import { METRIC_TYPE, rw2Bytes, Symbols } from '../support/rw2.js';
import { batchBytes, decodeBatch, decodeHistogramBatch, histogram, parse, rawSeries, requestOf, series, thanosRequest } from './support.js';

const STALE = 0x7ff0000000000002n;

function request(n: number): Uint8Array {
  return thanosRequest(Array.from({ length: n }, (_, i) =>
    series(['__name__', `m${i % 5}`, 'i', String(i), ...(i % 7 === 3 ? ['a', '1'] : [])], [[BigInt(i) - 50n, i / 2]])), 'team-b', 1n);
}

describe('parseWriteInPool', () => {
  const pool = new CodecPool({ workers: 2 });
  after(() => pool.close());

  test('answers what the direct call answers, batch byte for byte', async () => {
    const bytes = request(500);
    const direct = parse(bytes);
    const pooled = await parseWriteInPool(pool, bytes.slice(), { dialect: 'thanos', tenantLabel: 'tenant_id' });
    assert.deepEqual({ ...pooled, batch: undefined }, { ...direct, batch: undefined });
    assert.ok(direct.invalidSeries > 0, 'the request has refused series too');
    assert.deepEqual(batchBytes(pooled.batch), batchBytes(direct.batch));
  });

  test('moves the exemplar batch back beside the append batch; metadata and 2.0 requests as the direct call answers them', async () => {
    const ex = { labels: [{ name: 'trace_id', value: 'abc' }], value: 0.5, timestamp: 7n };
    const bytes = thanosRequest([series(['__name__', 'h'], [[7n, 1]], { exemplars: [ex, { ...ex, timestamp: 8n }] })]);
    const direct = parse(bytes);
    const pooled = await parseWriteInPool(pool, bytes.slice(), { dialect: 'thanos', tenantLabel: 'tenant_id' });
    assert.ok(pooled.exemplarBatch instanceof ArrayBuffer);
    assert.deepEqual(new Uint8Array(pooled.exemplarBatch), new Uint8Array(direct.exemplarBatch!));
    const s = new Symbols();
    const v2 = rw2Bytes({ symbols: s.table, timeseries: [{ labelsRefs: s.refs('__name__', 'v2'), samples: [{ value: 1, timestamp: 5n }], metadata: { type: METRIC_TYPE.gauge, helpRef: s.ref('Help.') } }] });
    const v2Direct = parse(v2, { dialect: 'prometheus-v2' });
    const v2Pooled = await parseWriteInPool(pool, v2.slice(), { dialect: 'prometheus-v2', tenantLabel: 'tenant_id' });
    assert.deepEqual({ ...v2Pooled, batch: undefined }, { ...v2Direct, batch: undefined });
    assert.deepEqual(v2Pooled.metadata, [{ family: 'v2', type: 'gauge', help: 'Help.', unit: '' }]);
    assert.deepEqual(new Uint8Array(v2Pooled.batch), new Uint8Array(v2Direct.batch));
  });

  test('moves the histogram batch back beside the append batch, as the direct call makes it', async () => {
    const h = histogram(9n);
    const bytes = thanosRequest([series(['__name__', 'h'], [[7n, 1]], { histograms: [h, { ...h, timestamp: 10n }, { ...h, schema: 99, timestamp: 11n }] })]);
    const direct = parse(bytes);
    const pooled = await parseWriteInPool(pool, bytes.slice(), { dialect: 'thanos', tenantLabel: 'tenant_id' });
    assert.ok(pooled.histogramBatch instanceof ArrayBuffer);
    assert.deepEqual(new Uint8Array(pooled.histogramBatch), new Uint8Array(direct.histogramBatch!));
    assert.deepEqual([pooled.histogramSamples, pooled.invalidHistograms], [2, 1]);
    assert.equal(pooled.firstInvalidHistogram, direct.firstInvalidHistogram);
  });

  test('keeps the stale marker bits across the threads', async () => {
    const bytes = requestOf([rawSeries(['__name__', 'gone'], [[1n, STALE]])]);
    const pooled = await parseWriteInPool(pool, bytes, { dialect: 'prometheus', tenant: 'h' });
    assert.deepEqual(decodeBatch(pooled.batch)[0]!.valueBits, [STALE]);
    assert.equal(pooled.tenant, 'h');
  });

  test('moves an input that owns its whole buffer to the worker', async () => {
    const bytes = request(10);
    await parseWriteInPool(pool, bytes, { dialect: 'thanos' });
    assert.equal(bytes.byteLength, 0, 'the buffer was transferred');
  });

  test('copies an input that is a view of a larger buffer, and leaves that buffer alone', async () => {
    const req = request(10);
    const big = new Uint8Array(req.length + 100);
    big.set(req, 50);
    const view = big.subarray(50, 50 + req.length);
    const pooled = await parseWriteInPool(pool, view, { dialect: 'thanos' });
    assert.equal(big.byteLength, req.length + 100);
    assert.deepEqual(view, req);
    assert.equal(pooled.series, 10);
  });

  test('copies a Node Buffer that views a larger buffer (Buffer#slice would not copy)', async () => {
    const req = request(10);
    const big = new ArrayBuffer(req.length + 64);
    const buf = Buffer.from(big, 32, req.length);
    buf.set(req);
    const pooled = await parseWriteInPool(pool, buf, { dialect: 'thanos' });
    assert.equal(big.byteLength, req.length + 64, 'the larger buffer is not detached');
    assert.deepEqual(new Uint8Array(buf), req);
    assert.equal(pooled.series, 10);
  });

  test('copies a small Node Buffer from the shared allocation pool', async () => {
    const small = Buffer.from(thanosRequest([series(['a', '1'])]));
    const copy = Uint8Array.from(small);
    const pooled = await parseWriteInPool(pool, small, { dialect: 'thanos' });
    assert.equal(pooled.samples, 1);
    assert.deepEqual(new Uint8Array(small), copy);
  });

  test('moves a body read into a buffer of ours (spare-buffers.ts) to the worker, and gets that buffer back', async () => {
    const req = request(300);
    const own = bodyBuffers.takeOrAllocate(req.length);
    assert.ok(own.byteLength > req.length, 'rounded up: a view of part of it');
    const body = Buffer.from(own, 0, req.length);
    body.set(req);
    while (bodyBuffers.take(0) !== undefined); // no spare left
    const pooled = await parseWriteInPool(pool, body, { dialect: 'thanos' });
    assert.equal(pooled.series, 300);
    assert.equal(own.byteLength, 0, 'moved, not copied');
    const back = bodyBuffers.take(req.length);
    assert.ok(back !== undefined && back.byteLength >= req.length, 'the worker gave the buffer back');
  });

  test('writes a batch into a given-back buffer, past whatever an earlier batch left in it', async () => {
    const large = request(800);
    const small = thanosRequest([series(['__name__', 'after', 'i', '1'], [[5n, 2]])], 'other');
    while (batchBuffers.take(0) !== undefined);
    const first = await parseWriteInPool(pool, large.slice(), { dialect: 'thanos' });
    recycleBatch(first.batch);
    const second = await parseWriteInPool(pool, small.slice(), { dialect: 'thanos' });
    assert.equal(first.batch.byteLength, 0, 'the recycled buffer was moved to the worker');
    assert.ok(second.batch.byteLength > batchBytes(second.batch).length, 'written into the larger buffer, slack after it');
    assert.deepEqual(batchBytes(second.batch), batchBytes(parse(small).batch));
    assert.deepEqual(decodeBatch(second.batch).map((e) => e.labels), [['__name__', 'after', 'i', '1', 'tenant_id', 'other']]);
  });

  test('writes a histogram batch into a given-back buffer, and gives back one it did not use', async () => {
    const h = histogram(9n);
    const many = thanosRequest(Array.from({ length: 600 }, (_, i) => series(['__name__', 'h', 'i', String(i)], [], { histograms: [h] })));
    const one = thanosRequest([series(['__name__', 'after'], [], { histograms: [{ ...h, sum: 2.5, timestamp: 12n }] })], 'other');
    while (histogramBatchBuffers.take(0) !== undefined);
    const first = await parseWriteInPool(pool, many.slice(), { dialect: 'thanos' });
    const large = first.histogramBatch!;
    recycleHistogramBatch(large);
    const second = await parseWriteInPool(pool, one.slice(), { dialect: 'thanos' });
    assert.equal(large.byteLength, 0, 'the recycled buffer was moved to the worker');
    assert.ok(second.histogramBatch!.byteLength > 64 * 1024, 'written at the start of the larger buffer');
    assert.deepEqual(decodeHistogramBatch(second.histogramBatch!), decodeHistogramBatch(parse(one).histogramBatch!));
    assert.equal(decodeHistogramBatch(second.histogramBatch!).length, 1, 'nothing of the earlier batch read');
    recycleHistogramBatch(second.histogramBatch!);
    const floats = await parseWriteInPool(pool, request(3), { dialect: 'thanos' });
    assert.equal(floats.histogramBatch, undefined);
    const back = histogramBatchBuffers.take(0);
    assert.ok(back !== undefined && back.byteLength > 64 * 1024, 'the unused spare came back');
  });

  test('throws MalformedRequestError with its offset for bytes that are not a message', async () => {
    await assert.rejects(parseWriteInPool(pool, Uint8Array.of(0x0a, 5, 0x0a), { dialect: 'thanos' }), (err: unknown) => {
      assert.ok(err instanceof MalformedRequestError);
      assert.equal(err.offset, 1);
      assert.equal(err.message, 'malformed write request at byte 1: length 5 runs past the end of its message (1 bytes left)');
      return true;
    });
  });

  test('passes other errors through (a bad option)', async () => {
    await assert.rejects(parseWriteInPool(pool, request(1), { dialect: 'thanos', tenantLabel: '' }), /tenantLabel must not be empty/);
  });

  test('parses many requests at once on both workers, each to its own answer', async () => {
    const inputs = Array.from({ length: 24 }, (_, k) => thanosRequest([series(['k', String(k)], [[BigInt(k), k]])], `t${k}`));
    const answers = await Promise.all(inputs.map((bytes) => parseWriteInPool(pool, bytes, { dialect: 'thanos' })));
    answers.forEach((a, k) => {
      assert.equal(a.tenant, `t${k}`);
      assert.deepEqual(decodeBatch(a.batch)[0]!.labels, ['k', String(k), 'tenant_id', `t${k}`]);
    });
  });
});
