import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NO_BOUNDS } from '../../src/head/head.js';
import { Head } from '../../src/head/head.js';
import { PostingsIndex } from '../../src/index/postings-index.js';
import { batchBuilder, decodeSelected } from '../support/db.js';

/** Appends `samples` samples to each of `n` series named by `prefix`; answers their ids. */
function fill(head: Head, prefix: string, n: number, samples: number): Uint32Array {
  const ids = new Uint32Array(n);
  for (let t = 0; t < samples; t++) {
    const b = batchBuilder();
    for (let i = 0; i < n; i++) b.add(['__name__', 'm', 'series', `${prefix}-${i}-${'x'.repeat(40)}`], BigInt64Array.of(BigInt(1000 + t)), Float64Array.of(i + t));
    head.append(b.finish(), NO_BOUNDS, 0, () => {});
  }
  for (let i = 0; i < n; i++) ids[i] = head.find(Buffer.from(`__name__\u00ffm\u00ffseries\u00ff${prefix}-${i}-${'x'.repeat(40)}\u00ff`, 'latin1'))!.id;
  return ids;
}

describe('free module memory given back to the OS', () => {
  test('series that left the head give whole pages back, and the head goes on as before', () => {
    const head = new Head(new PostingsIndex(), { chunkRangeMs: 7_200_000 });
    const kept = fill(head, 'kept', 2_000, 3);
    const gone = fill(head, 'old', 20_000, 3);
    head.drop(gone.slice().sort());
    head.drainCuts(() => {});
    const released = head.releaseFreeMemory();
    assert.ok(released >= 1 << 20, `at least 1 MiB of the dropped series' slots and chunks given back, got ${released}`);
    assert.equal(released % 4096, 0, 'whole pages only');

    // The allocator still works: new series take the released pages, their samples read back.
    const fresh = fill(head, 'new', 20_000, 3);
    assert.equal(head.seriesCount, 22_000);
    for (const id of [kept[0]!, kept[1_999]!, fresh[0]!, fresh[12_345]!, fresh[19_999]!]) {
      const s = head.get(id)!;
      assert.deepEqual(head.labelsOf(s).slice(0, 3), ['__name__', 'm', 'series']);
      const open = head.openChunkIn(s, 0, 10_000)!;
      const [decoded] = decodeSelected([{ labels: [], chunks: [open] }]);
      assert.deepEqual(decoded!.t, [1000, 1001, 1002]);
    }
    const freeAfterRefill = head.releaseFreeMemory();
    assert.ok(freeAfterRefill < released, `the new series took the freed pages: ${freeAfterRefill} bytes free after, ${released} before`);
  });
});
