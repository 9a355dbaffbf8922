// Damage a torn write cannot explain stops the open with an error naming
// the file and byte offset, and leaves every file as it was.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Wal, WalCorruptionError } from '../../src/wal/index.js';
import { tempDir, writeRecords } from './support/helpers.js';

const quiet = { fsyncIntervalMs: 60_000 };

function flipByte(file: string, at: number): void {
  const b = readFileSync(file);
  b[at] = (b[at] ?? 0) ^ 0x5a;
  writeFileSync(file, b);
}

/** Every file's name and size, to show a failed open changed nothing. */
function snapshot(dir: string): string[] {
  return readdirSync(dir).sort().map((n) => `${n}:${statSync(join(dir, n)).size}`);
}

async function expectCorruption(dir: string, file: string, offset: number, reason: RegExp): Promise<void> {
  const before = snapshot(dir);
  await assert.rejects(Wal.open({ dir, ...quiet }, () => {}), (e: unknown) => {
    assert.ok(e instanceof WalCorruptionError, `a WalCorruptionError, got ${String(e)}`);
    assert.equal(e.file, file);
    assert.equal(e.offset, offset);
    assert.ok(e.message.includes(file), `the message names the file: ${e.message}`);
    assert.ok(e.message.includes(`byte ${offset}`), `the message names the offset: ${e.message}`);
    assert.match(e.reason, reason);
    return true;
  });
  assert.deepEqual(snapshot(dir), before, 'a failed open changes no file');
}

/** Several segments of records, the last one holding several records too. */
async function severalSegments(dir: string) {
  const placed = await writeRecords(dir, Array.from({ length: 40 }, (_, i) => (i < 30 ? 300 + i * 10 : 50)));
  const lastSegment = placed.at(-1)?.segment ?? 0;
  assert.ok(lastSegment >= 2);
  return { placed, lastSegment };
}

describe('WAL corruption', () => {
  test('a bad checksum in a segment that is not the last throws, naming file and offset', async () => {
    const dir = tempDir();
    const { placed } = await severalSegments(dir);
    const victim = placed.find((p) => p.segment === 0 && p.offset > 16);
    assert.ok(victim);
    flipByte(victim.file, victim.offset + 13 + 7);
    await expectCorruption(dir, victim.file, victim.offset, /record checksum/);
  });

  test('a record cut short at the end of a segment that is not the last throws', async () => {
    const dir = tempDir();
    const { placed } = await severalSegments(dir);
    const victim = placed.filter((p) => p.segment === 0).at(-1);
    assert.ok(victim);
    truncateSync(victim.file, victim.offset + 20);
    await expectCorruption(dir, victim.file, victim.offset, /past the end/);
  });

  test('a bad checksum in the middle of the last segment throws rather than dropping the records after it', async () => {
    const dir = tempDir();
    const { placed, lastSegment } = await severalSegments(dir);
    const inLast = placed.filter((p) => p.segment === lastSegment);
    assert.ok(inLast.length >= 3);
    const victim = inLast[1];
    assert.ok(victim);
    flipByte(victim.file, victim.offset + 13 + victim.payload.byteLength - 1);
    await expectCorruption(dir, victim.file, victim.offset, /record checksum/);
  });

  test('a damaged length in the middle of the last segment throws (header checksum), not a torn tail', async () => {
    const dir = tempDir();
    const { placed, lastSegment } = await severalSegments(dir);
    const victim = placed.filter((p) => p.segment === lastSegment)[1];
    assert.ok(victim);
    flipByte(victim.file, victim.offset + 2); // the length now runs far past the end
    await expectCorruption(dir, victim.file, victim.offset, /header checksum/);
  });

  test('record type 0 followed by data throws', async () => {
    const dir = tempDir();
    const { placed, lastSegment } = await severalSegments(dir);
    const victim = placed.filter((p) => p.segment === lastSegment)[0];
    assert.ok(victim);
    const b = readFileSync(victim.file);
    b[victim.offset] = 0;
    writeFileSync(victim.file, b);
    await expectCorruption(dir, victim.file, victim.offset, /type 0/);
  });

  test('a missing segment in the sequence throws, naming the file after the gap', async () => {
    const dir = tempDir();
    await severalSegments(dir);
    rmSync(join(dir, '00000001'));
    await expectCorruption(dir, join(dir, '00000002'), 0, /segment 1 is missing/);
  });

  test('segments that do not start at 0 without a checkpoint throw', async () => {
    const dir = tempDir();
    await severalSegments(dir);
    rmSync(join(dir, '00000000'));
    await expectCorruption(dir, join(dir, '00000001'), 0, /segment 0 is missing/);
  });

  const headerDamage: Array<[string, (file: string, dir: string) => void, RegExp]> = [
    ['magic', (f) => flipByte(f, 0), /bad magic/],
    ['version', (f) => flipByte(f, 4), /unsupported format version/],
    ['checksum', (f) => flipByte(f, 9), /file header checksum/],
    [
      'number (two segments swapped)',
      (f, dir) => {
        renameSync(f, join(dir, 'x'));
        renameSync(join(dir, '00000001'), f);
        renameSync(join(dir, 'x'), join(dir, '00000001'));
      },
      /header says file number 1, its name says 0/,
    ],
  ];
  for (const [what, damage, reason] of headerDamage) {
    test(`a segment file header with a bad ${what} throws`, async () => {
      const dir = tempDir();
      await severalSegments(dir);
      const file = join(dir, '00000000');
      damage(file, dir);
      await expectCorruption(dir, file, 0, reason);
    });
  }

  test('a last segment with a non-zero but wrong header throws', async () => {
    const dir = tempDir();
    const { lastSegment } = await severalSegments(dir);
    const file = join(dir, String(lastSegment).padStart(8, '0'));
    flipByte(file, 1);
    await expectCorruption(dir, file, 0, /bad magic/);
  });

  test('a last segment whose header is zero but which holds data throws', async () => {
    const dir = tempDir();
    const { lastSegment } = await severalSegments(dir);
    const file = join(dir, String(lastSegment).padStart(8, '0'));
    const b = readFileSync(file);
    b.fill(0, 0, 16);
    writeFileSync(file, b);
    await expectCorruption(dir, file, 0, /bad magic/);
  });
});
