// The frozen WAL in test/fixtures/wal guards the on-disk format: the code
// must read it, must write the same bytes, and the bytes must be what
// docs/format/wal.md says.
import assert from 'node:assert/strict';
import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { crc32c } from '@node-rs/crc32';
import { writeFixtureWal } from '../fixtures/wal/fixture.js';
import type { FixtureRecord } from '../fixtures/wal/fixture.js';
import { memoryLog, replayAll, tempDir } from './support/helpers.js';

const frozen = new URL('../fixtures/wal/wal/', import.meta.url).pathname;
const expected = JSON.parse(readFileSync(new URL('../fixtures/wal/expected.json', import.meta.url), 'utf8')) as FixtureRecord[];

/** Decodes a WAL file as docs/format/wal.md describes it, independently of src/wal. */
function decodeBySpec(bytes: Buffer) {
  const header = {
    magic: bytes.subarray(0, 4).toString('latin1'),
    version: bytes[4],
    kind: bytes[5],
    reserved: bytes.readUInt16BE(6),
    sequence: bytes.readUInt32BE(8),
    crcOk: bytes.readUInt32BE(12) === crc32c(bytes.subarray(0, 12)),
  };
  const records: Array<{ type: number; payload: string }> = [];
  let off = 16;
  while (off < bytes.byteLength) {
    const type = bytes[off] ?? 0;
    const length = bytes.readUInt32BE(off + 1);
    const headerCrc = crc32c(bytes.subarray(off, off + 5));
    assert.equal(bytes.readUInt32BE(off + 5), headerCrc, `header CRC at ${off}`);
    const payload = bytes.subarray(off + 13, off + 13 + length);
    assert.equal(bytes.readUInt32BE(off + 9), crc32c(Buffer.concat([bytes.subarray(off, off + 5), payload])), `record CRC at ${off}`);
    records.push({ type, payload: payload.toString('hex') });
    off += 13 + length;
  }
  assert.equal(off, bytes.byteLength);
  return { header, records };
}

describe('WAL frozen fixture', () => {
  test('replays the checked-in checkpoint and segments to the expected records, without repairs', async () => {
    const dir = tempDir();
    cpSync(frozen, dir, { recursive: true });
    const log = memoryLog();
    const replayed = await replayAll({ dir, log, fsyncIntervalMs: 60_000 });
    assert.deepEqual(
      replayed.map((r) => ({ type: r.type, payload: r.payload.toString('hex'), segment: r.segment })),
      expected,
    );
    assert.deepEqual(log.lines.filter((l) => l.level !== 'info'), []);
  });

  test('the current code writes the fixture byte for byte', async () => {
    const dir = tempDir();
    const records = await writeFixtureWal(dir);
    assert.deepEqual(records, expected);
    const names = readdirSync(frozen).sort();
    assert.deepEqual(readdirSync(dir).sort(), names);
    for (const name of names) assert.ok(readFileSync(join(dir, name)).equals(readFileSync(join(frozen, name))), `${name} is unchanged`);
  });

  test('the fixture files are laid out as docs/format/wal.md says', () => {
    const files: Array<[string, number, number]> = [['checkpoint.00000002', 2, 2], ['00000002', 1, 2], ['00000003', 1, 3]];
    const all: Array<{ type: number; payload: string }> = [];
    for (const [name, kind, sequence] of files) {
      const { header, records } = decodeBySpec(readFileSync(join(frozen, name)));
      assert.deepEqual(header, { magic: 'SWAL', version: 1, kind, reserved: 0, sequence, crcOk: true }, name);
      all.push(...records);
    }
    assert.deepEqual(all, expected.map(({ type, payload }) => ({ type, payload })));
  });
});
