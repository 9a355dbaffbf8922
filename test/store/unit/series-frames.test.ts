import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeriesResponse } from '../../../src/gen/thanos/store/rpc.js';
import { FRAME_TARGET_BYTES, encodeSeriesFrames, encodeWarningFrame } from '../../../src/store/series-frames.js';
import { putUvarint64 } from '../../../src/encoding/varint.js';

test('a series frame decodes as a thanos.SeriesResponse with labels and raw XOR chunks', () => {
  const labels = ['__name__', 'up', 'région', 'é€😀'];
  const chunks = [
    { minT: -5_000_000_000_000, maxT: -1, data: Uint8Array.of(0, 1, 2, 3) },
    { minT: 0, maxT: 2 ** 52, data: Uint8Array.of(9) },
  ];
  const frames: Buffer[] = [];
  encodeSeriesFrames(labels, chunks, (f) => frames.push(f));
  assert.equal(frames.length, 1);
  const r = SeriesResponse.decode(frames[0]!);
  assert.equal(r.result?.$case, 'series');
  const s = r.result!.$case === 'series' ? r.result.value : undefined;
  assert.deepEqual(s!.labels, [{ name: '__name__', value: 'up' }, { name: 'région', value: 'é€😀' }]);
  assert.deepEqual(s!.chunks.map((c) => [c.minTime, c.maxTime, c.raw?.type, [...c.raw!.data]]), [
    [-5_000_000_000_000n, -1n, 0, [0, 1, 2, 3]],
    [0n, 2n ** 52n, 0, [9]],
  ]);
});

test('a long series is split into frames of about 1 MiB, every frame with the labels, chunks in order', () => {
  const labels = ['a', '1'];
  const chunks = Array.from({ length: 3000 }, (_, i) => ({ minT: i * 1000, maxT: i * 1000 + 999, data: new Uint8Array(1000).fill(i % 251) }));
  const frames: Buffer[] = [];
  encodeSeriesFrames(labels, chunks, (f) => frames.push(f));
  assert.ok(frames.length >= 3);
  const seen: bigint[] = [];
  for (const f of frames) {
    assert.ok(f.length <= FRAME_TARGET_BYTES + 2048, `frame of ${f.length} bytes`);
    const r = SeriesResponse.decode(f);
    const s = r.result?.$case === 'series' ? r.result.value : undefined;
    assert.deepEqual(s!.labels, [{ name: 'a', value: '1' }]);
    for (const c of s!.chunks) seen.push(c.minTime);
  }
  assert.deepEqual(seen, chunks.map((c) => BigInt(c.minT)));
});

test('skip_chunks: a series without chunks is one frame of labels', () => {
  const frames: Buffer[] = [];
  encodeSeriesFrames(['a', '1'], [], (f) => frames.push(f));
  assert.equal(frames.length, 1);
  const r = SeriesResponse.decode(frames[0]!);
  assert.equal(r.result?.$case, 'series');
});

test('a warning frame decodes as a warning', () => {
  const r = SeriesResponse.decode(encodeWarningFrame('raw data ☂'));
  assert.deepEqual(r.result, { $case: 'warning', value: 'raw data ☂' });
});

test('int64 varints match two\'s complement for negatives', () => {
  for (const n of [-1, -2, -(2 ** 40), -(2 ** 53) + 1, 0, 1, 127, 128, 2 ** 53 - 1]) {
    const b = new Uint8Array(10);
    const end = putUvarint64(b, 0, n);
    let x = 0n;
    for (let i = end - 1; i >= 0; i--) x = (x << 7n) | BigInt(b[i]! & 0x7f);
    assert.equal(BigInt.asIntN(64, x), BigInt(n), String(n));
  }
});

test('long label names and values (Label messages of 128 bytes and more) encode right', () => {
  const long = 'v'.repeat(300);
  const labels = ['a', 'x'.repeat(127), 'b', long, 'n'.repeat(130), '1'];
  const frames: Buffer[] = [];
  encodeSeriesFrames(labels, [], (f) => frames.push(f));
  const r = SeriesResponse.decode(frames[0]!);
  const s = r.result?.$case === 'series' ? r.result.value : undefined;
  assert.deepEqual(s!.labels, [{ name: 'a', value: 'x'.repeat(127) }, { name: 'b', value: long }, { name: 'n'.repeat(130), value: '1' }]);
});
