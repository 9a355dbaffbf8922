// The spares keep few and small enough buffers: at most 16, none over 16 MiB, 32 MiB in all.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SPARE_MAX_BYTES, SpareBuffers } from '../../src/pool/spare-buffers.js';

const MiB = 1 << 20;

describe('spare buffers', () => {
  test('a buffer given back is taken again', () => {
    const spares = new SpareBuffers();
    const b = spares.takeOrAllocate(100_000);
    spares.give(b);
    assert.equal(spares.take(100_000), b);
    assert.equal(spares.take(1), undefined);
  });

  test('a buffer over 16 MiB is not kept', () => {
    const spares = new SpareBuffers();
    spares.give(new ArrayBuffer(SPARE_MAX_BYTES + 1));
    assert.equal(spares.take(1), undefined);
  });

  test('no more than 32 MiB in all is kept', () => {
    const spares = new SpareBuffers();
    for (let i = 0; i < 4; i++) spares.give(new ArrayBuffer(16 * MiB));
    let kept = 0;
    while (spares.take(1) !== undefined) kept++;
    assert.equal(kept, 2);
  });

  test('no more than 16 buffers are kept', () => {
    const spares = new SpareBuffers();
    for (let i = 0; i < 20; i++) spares.give(new ArrayBuffer(65536));
    let kept = 0;
    while (spares.take(1) !== undefined) kept++;
    assert.equal(kept, 16);
  });
});
