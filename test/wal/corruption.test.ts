// Damage a torn write cannot explain is skipped, reported with file and
// byte offset: only the damaged records are lost (Prometheus drops every
// record after the first corrupt one), and no damaged file is changed.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { openCollect, tempDir, writeRecords, type Placed } from './support/helpers.js';

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

/**
 * Opens the WAL twice (the second start must lose no more than the first),
 * and checks that replay skipped exactly the records `lost`, replayed every
 * other one in order, reported the damage at `file` and `offset`, and
 * changed no file.
 */
async function expectSkipped(dir: string, placed: readonly Placed[], lost: ReadonlySet<number>, file: string, offset: number, reason: RegExp): Promise<void> {
  const before = snapshot(dir);
  for (let start = 0; start < 2; start++) {
    const { wal, records } = await openCollect({ dir, ...quiet });
    const damage = wal.damaged.find((d) => d.file === file && d.offset === offset);
    assert.ok(damage !== undefined, `damage reported at ${file}:${offset}: ${JSON.stringify(wal.damaged)}`);
    assert.match(damage.reason, reason);
    const want = placed.filter((p) => !lost.has(p.seq)).map((p) => p.payload.toString('hex'));
    assert.deepEqual(records.map((r) => r.payload.toString('hex')), want);
    await wal.close();
    // The new (empty) segment each open starts is the only change.
    const after = snapshot(dir).filter((f) => before.some((b) => b.startsWith(f.split(':')[0]!)));
    assert.deepEqual(after, before, 'replay changes no damaged file');
  }
}

/** Several segments of records, the last one holding several records too. */
async function severalSegments(dir: string) {
  const placed = await writeRecords(dir, Array.from({ length: 40 }, (_, i) => (i < 30 ? 300 + i * 10 : 50)));
  const lastSegment = placed.at(-1)?.segment ?? 0;
  assert.ok(lastSegment >= 2);
  return { placed, lastSegment };
}

describe('WAL corruption', () => {
  test('a bad checksum in a segment that is not the last: that record is skipped, every other one replayed', async () => {
    const dir = tempDir();
    const { placed } = await severalSegments(dir);
    const victim = placed.find((p) => p.segment === 0 && p.offset > 16);
    assert.ok(victim);
    flipByte(victim.file, victim.offset + 13 + 7);
    await expectSkipped(dir, placed, new Set([victim.seq]), victim.file, victim.offset, /record checksum/);
  });

  test('a record cut short at the end of a segment that is not the last is skipped; the later segments are replayed', async () => {
    const dir = tempDir();
    const { placed } = await severalSegments(dir);
    const victim = placed.filter((p) => p.segment === 0).at(-1);
    assert.ok(victim);
    truncateSync(victim.file, victim.offset + 20);
    await expectSkipped(dir, placed, new Set([victim.seq]), victim.file, victim.offset, /past the end/);
  });

  test('a bad checksum in the middle of the last segment loses that record only, not the records after it', async () => {
    const dir = tempDir();
    const { placed, lastSegment } = await severalSegments(dir);
    const inLast = placed.filter((p) => p.segment === lastSegment);
    assert.ok(inLast.length >= 3);
    const victim = inLast[1];
    assert.ok(victim);
    flipByte(victim.file, victim.offset + 13 + victim.payload.byteLength - 1);
    await expectSkipped(dir, placed, new Set([victim.seq]), victim.file, victim.offset, /record checksum/);
  });

  test('a damaged length in the middle of the last segment (header checksum) loses that record only: replay finds the next one', async () => {
    const dir = tempDir();
    const { placed, lastSegment } = await severalSegments(dir);
    const victim = placed.filter((p) => p.segment === lastSegment)[1];
    assert.ok(victim);
    flipByte(victim.file, victim.offset + 2); // the length now runs far past the end
    await expectSkipped(dir, placed, new Set([victim.seq]), victim.file, victim.offset, /header checksum/);
  });

  test('record type 0 followed by data: that record is skipped', async () => {
    const dir = tempDir();
    const { placed, lastSegment } = await severalSegments(dir);
    const victim = placed.filter((p) => p.segment === lastSegment)[0];
    assert.ok(victim);
    const b = readFileSync(victim.file);
    b[victim.offset] = 0;
    writeFileSync(victim.file, b);
    await expectSkipped(dir, placed, new Set([victim.seq]), victim.file, victim.offset, /type 0/);
  });

  test('a missing segment in the sequence loses its records only, named in the report', async () => {
    const dir = tempDir();
    const { placed } = await severalSegments(dir);
    rmSync(join(dir, '00000001'));
    const lost = new Set(placed.filter((p) => p.segment === 1).map((p) => p.seq));
    await expectSkipped(dir, placed, lost, join(dir, '00000001'), 0, /segment 1 is missing/);
  });

  test('segments that do not start at 0 without a checkpoint: the missing first one is reported, the rest replayed', async () => {
    const dir = tempDir();
    const { placed } = await severalSegments(dir);
    rmSync(join(dir, '00000000'));
    const lost = new Set(placed.filter((p) => p.segment === 0).map((p) => p.seq));
    await expectSkipped(dir, placed, lost, join(dir, '00000000'), 0, /segment 0 is missing/);
  });

  const headerDamage: Array<[string, (file: string) => void, RegExp]> = [
    ['magic', (f) => flipByte(f, 0), /bad magic/],
    ['version', (f) => flipByte(f, 4), /unsupported format version/],
    ['checksum', (f) => flipByte(f, 9), /file header checksum/],
  ];
  for (const [what, damage, reason] of headerDamage) {
    test(`a segment file header with a bad ${what} is reported, and its records are read all the same`, async () => {
      const dir = tempDir();
      const { placed } = await severalSegments(dir);
      const file = join(dir, '00000000');
      damage(file);
      await expectSkipped(dir, placed, new Set(), file, 0, reason);
    });
  }

  test('two segments swapped: both headers are reported, and every record is still replayed', async () => {
    const dir = tempDir();
    const { placed } = await severalSegments(dir);
    const [a, b] = [join(dir, '00000000'), join(dir, '00000001')];
    renameSync(a, join(dir, 'x'));
    renameSync(b, a);
    renameSync(join(dir, 'x'), b);
    const { wal, records } = await openCollect({ dir, ...quiet });
    assert.deepEqual(wal.damaged.map((d) => [d.file, d.offset]), [[a, 0], [b, 0]]);
    assert.match(wal.damaged[0]!.reason, /header says file number 1, its name says 0/);
    assert.deepEqual(records.map((r) => r.payload.toString('hex')).sort(), placed.map((p) => p.payload.toString('hex')).sort());
    await wal.close();
  });

  test('a last segment with a non-zero but wrong header is reported, and its records are read', async () => {
    const dir = tempDir();
    const { placed, lastSegment } = await severalSegments(dir);
    const file = join(dir, String(lastSegment).padStart(8, '0'));
    flipByte(file, 1);
    await expectSkipped(dir, placed, new Set(), file, 0, /bad magic/);
  });

  test('a last segment whose header is zero but which holds data is reported, and its records are read', async () => {
    const dir = tempDir();
    const { placed, lastSegment } = await severalSegments(dir);
    const file = join(dir, String(lastSegment).padStart(8, '0'));
    const b = readFileSync(file);
    b.fill(0, 0, 16);
    writeFileSync(file, b);
    await expectSkipped(dir, placed, new Set(), file, 0, /bad magic/);
  });
});
