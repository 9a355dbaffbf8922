import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Head, NO_BOUNDS } from '../../src/head/head.js';
import { PostingsIndex } from '../../src/index/postings-index.js';
import { batchBuilder, decodeSelected } from '../support/db.js';

/** Bytes of module memory the allocator holds: all of it less its free whole pages. */
function usedBytes(head: Head): number {
  const max = 16_384;
  const out = head.wasm.alloc(max * 8);
  const n = head.wasm.heapFreePages(out, max);
  assert.ok(n >= 0, 'the allocator walk answers');
  const pairs = new Uint32Array(head.wasm.memory.buffer, out, n * 2);
  let free = 0;
  for (let i = 0; i < n; i++) free += pairs[2 * i + 1]!;
  head.wasm.free(out);
  return head.wasm.memory.buffer.byteLength - free;
}

const labelsOf = (i: number): string[] => ['__name__', 'node_network_receive_bytes_total', 'device', `eth${i % 4}`,
  'instance', `node-${String(i >> 2).padStart(4, '0')}.dc1.example.internal:9100`, 'job', 'node'];

describe('module memory a series takes', () => {
  test('a series with six counter samples: its slot, label bytes and open chunk in about 230 bytes and its label bytes', () => {
    const head = new Head(new PostingsIndex(), { chunkRangeMs: 7_200_000 });
    const n = 20_000;
    const before = usedBytes(head);
    const value = Float64Array.from({ length: n }, (_, i) => 1e9 + i * 7919);
    // Batches of 500 series, as a remote-write request's: their buffers stay small beside the series.
    for (let k = 0; k < 6; k++) {
      for (let from = 0; from < n; from += 500) {
        const b = batchBuilder();
        // Counters stepping by irregular amounts, as node_exporter's byte counters do: a few bytes a sample.
        for (let i = from; i < from + 500; i++) b.add(labelsOf(i), BigInt64Array.of(BigInt(1_700_000_000_000 + k * 15_000)), Float64Array.of((value[i]! += 1000 + ((i * 31 + k * 977) % 65_536))));
        head.append(b.finish(), NO_BOUNDS, 0, () => {});
        head.drainCuts(() => {});
      }
    }
    const labelBytes = Buffer.byteLength(labelsOf(0).join('\u00ff')) + 1;
    const perSeries = (usedBytes(head) - before) / n;
    // Slot 112 + label bytes in one block, a 76-byte chunk buffer (an
    // 80-byte block), the hash table's 8 bytes a slot (26 a series at 20k
    // series) and the id table's 4 a slot: about 232 + the label bytes.
    // With a 128-byte slot and a 128-byte first buffer it was 315 + them.
    assert.ok(perSeries < 250 + labelBytes, `${perSeries.toFixed(1)} bytes a series with ${labelBytes} label bytes`);
    const s = head.get(head.find(Buffer.from(`${labelsOf(4321).join('\u00ff')}\u00ff`, 'latin1'))!.id)!;
    const [decoded] = decodeSelected([{ labels: [], chunks: [head.openChunkIn(s, 0, Number.MAX_SAFE_INTEGER)!] }]);
    assert.equal(decoded!.t.length, 6);
    assert.equal(decoded!.v[5], new DataView(Float64Array.of(value[4321]!).buffer).getBigUint64(0, true).toString(16).padStart(16, '0'));
  });
});
