import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { collectYoungAfter } from '../../src/pool/collect.js';

// What exposeCollector() gives a pool worker: V8's `gc` on the global.
setFlagsFromString('--expose-gc');
(globalThis as { gc?: unknown }).gc = runInNewContext('gc');

/** Bytes of ArrayBuffers the allocator holds, once freed ones are swept (bounded wait). */
async function settledArrayBuffers(below: number): Promise<number> {
  let n = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 100 && n >= below; i++) {
    await sleep(10);
    n = process.memoryUsage().arrayBuffers;
  }
  return n;
}

describe('collectYoungAfter', () => {
  test('frees the decoded bodies a task let go once 4 MiB of them were', async () => {
    const before = process.memoryUsage().arrayBuffers;
    // Young garbage, as a worker's decoded bodies are: allocated and dropped.
    for (let i = 0; i < 4; i++) Buffer.allocUnsafeSlow(1 << 20).fill(i);
    assert.ok(process.memoryUsage().arrayBuffers >= before + (4 << 20), 'the buffers are held until collected');
    collectYoungAfter(3 << 20);
    collectYoungAfter(1 << 20);
    const after = await settledArrayBuffers(before + (1 << 20));
    assert.ok(after < before + (1 << 20), `${after - before} bytes of the dropped buffers still held`);
  });
});
