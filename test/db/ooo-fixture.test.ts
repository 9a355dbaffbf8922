// The frozen out-of-order WAL (test/fixtures/ooo-wal) guards the
// out-of-order records: the code must write the same bytes, the payloads
// must be what docs/format/wal.md says, and a store opened on it must hold
// exactly what replay of those records makes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MatchType } from '../../src/index/types.js';
import { RECORD_OOO_CUT, RECORD_OOO_SAMPLES } from '../../src/record/wal-records.js';
import { fixtureExpected, fixtureRecords, writeOooFixtureWal } from '../fixtures/ooo-wal/fixture.js';
import { decodeSelected, openSmallDb, tempDir } from '../support/db.js';

const frozen = new URL('../fixtures/ooo-wal/', import.meta.url).pathname;
const tmp = tempDir();
after(() => tmp.remove());

test('the current code writes the frozen bytes', async () => {
  const dir = join(tmp.dir, 'written');
  mkdirSync(dir);
  await writeOooFixtureWal(dir);
  assert.deepEqual(readFileSync(join(dir, '00000000')), readFileSync(join(frozen, 'wal', '00000000')));
  assert.deepEqual(JSON.parse(readFileSync(join(frozen, 'expected.json'), 'utf8')), fixtureExpected());
});

/** Reads the frozen segment's records by the format page: 16-byte header, then type, length, two CRCs, payload. */
function frozenRecords(): Array<{ type: number; payload: Buffer }> {
  const b = readFileSync(join(frozen, 'wal', '00000000'));
  const out: Array<{ type: number; payload: Buffer }> = [];
  for (let at = 16; at < b.length;) {
    const len = b.readUInt32BE(at + 1);
    out.push({ type: b[at]!, payload: b.subarray(at + 13, at + 13 + len) });
    at += 13 + len;
  }
  return out;
}

test('OOO_SAMPLES and OOO_CUT payloads are as docs/format/wal.md says', () => {
  const records = frozenRecords();
  assert.deepEqual(records.map((r) => r.type), fixtureRecords().map((r) => r.type));
  const cuts = records.filter((r) => r.type === RECORD_OOO_CUT).map((r) => [r.payload[0], Number(r.payload.readBigInt64LE(1))]);
  assert.deepEqual(cuts, [[1, 2000], [2, 2000], [1, 3000]]);
  // [base time i64][id zigzag varint delta][count varint][per sample: zigzag varint time delta, value bits u64]
  const samples = records.filter((r) => r.type === RECORD_OOO_SAMPLES).map((r) => {
    const p = r.payload;
    let at = 8;
    const varint = () => {
      let x = 0;
      let scale = 1;
      for (;;) {
        const byte = p[at++]!;
        x += (byte & 0x7f) * scale;
        if (byte < 0x80) return x;
        scale *= 128;
      }
    };
    const unzig = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
    const base = Number(p.readBigInt64LE(0));
    const out: Array<[number, number, string]> = [];
    let id = 0;
    while (at < p.length) {
      id += unzig(varint());
      const n = varint();
      let t = base;
      for (let k = 0; k < n; k++) {
        t += unzig(varint());
        out.push([id, t, p.readBigUInt64LE(at).toString(16)]);
        at += 8;
      }
    }
    return out;
  });
  assert.deepEqual(samples, [
    [[1, 1500, '7ff0000000000002'], [1, 2500, '4004000000000000'], [2, 500, 'c07f400000000000']],
    [[1, 1700, '3ffb333333333333']],
  ]);
});

test('a store opened on it holds what the records say: a cut ended drops its samples, one never ended puts them back', async () => {
  const dir = join(tmp.dir, 'store');
  cpSync(join(frozen, 'wal'), join(dir, 'wal'), { recursive: true });
  const db = await openSmallDb(dir, { outOfOrderWindowMs: 3_600_000 });
  const got = decodeSelected(db.querier().select([{ type: MatchType.EQ, name: '__name__', value: 'fx' }], -Infinity, Infinity));
  assert.deepEqual(got.map((s) => ({ labels: s.labels, samples: s.t.map((t, i) => [t, s.v[i]]) })), fixtureExpected());
  assert.equal(db.oooSamples, 2, '1.7 s and 2.5 s of series 1');
  await db.close();
});
