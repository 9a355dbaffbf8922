// Chunks worked out by hand, bit by bit, from the format description
// (docs/format/xor-chunk.md). The Prometheus fixtures cover the rest.
import { describe, test } from 'node:test';
import { codecs } from '../../src/chunkenc/index.js';
import { sameBytes } from '../support/series.js';

const cases: Array<{ name: string; ts: bigint[]; vs: number[]; hex: string }> = [
  // Go's bstream.writeByte always leaves a fresh byte: a chunk of one sample
  // (all written byte-wise) ends with a spare zero byte.
  { name: 'one sample at 0', ts: [0n], vs: [0], hex: '0001' + '00' + '0000000000000000' + '00' },
  { name: 'one sample at -1 (zigzag varint)', ts: [-1n], vs: [1], hex: '0001' + '01' + '3ff0000000000000' + '00' },
  {
    name: 'second sample: uvarint delta, equal value',
    ts: [1000n, 2000n], vs: [1, 1],
    hex: '0002' + 'd00f' + '3ff0000000000000' + 'e807' + '00',
  },
  {
    name: 'new XOR window, then a window that must be replaced',
    ts: [0n, 1n, 2n], vs: [1, 2, 3],
    // '11' lz=1 sig=11 then 11 ones; then dod '0', '11' lz=12 sig=1 '1'.
    hex: '0003' + '00' + '3ff0000000000000' + '01' + 'c25fff' + '6c06',
  },
];

for (const codec of codecs) {
  describe(`${codec.name} codec: hand-made chunks`, () => {
    for (const c of cases) {
      test(c.name, () => {
        const chunk = codec.encode(BigInt64Array.from(c.ts), Float64Array.from(c.vs));
        sameBytes(chunk, Buffer.from(c.hex, 'hex'), c.name);
      });
    }
  });
}
