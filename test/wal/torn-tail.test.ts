// A crash can leave the last segment ending in part of a record. Each shape
// below is cut back to the last whole record, logged, and the WAL goes on.
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Wal } from '../../src/wal/index.js';
import { memoryLog, openCollect, payloadFor, replayAll, segmentFiles, tempDir, writeRecords } from './support/helpers.js';
import type { Placed } from './support/helpers.js';

const quiet = { fsyncIntervalMs: 60_000 };

interface Shape {
  name: string;
  /** Damages the last segment, whose last record is `last`; returns how many records must survive. */
  tear(file: string, last: Placed, count: number): number;
}

const shapes: Shape[] = [
  {
    name: 'a record header cut short',
    tear(file, _last, count) {
      appendFileSync(file, Buffer.from([7, 0, 0, 1]));
      return count;
    },
  },
  {
    name: 'a payload running past the end of the file',
    tear(file, last, count) {
      truncateSync(file, last.offset + 13 + Math.floor(last.payload.byteLength / 2));
      return count - 1;
    },
  },
  {
    name: 'a frame header that stops after its type and length',
    tear(file, last, count) {
      truncateSync(file, last.offset + 5);
      return count - 1;
    },
  },
  {
    name: 'a checksum failure with only zeros after it (pages not written)',
    tear(file, last) {
      const b = readFileSync(file);
      b.fill(0, last.offset + 13 + 100, last.offset + 13 + last.payload.byteLength);
      writeFileSync(file, Buffer.concat([b, Buffer.alloc(3000)]));
      return last.seq;
    },
  },
  {
    name: 'a checksum failure at the very end of the file',
    tear(file, last) {
      const b = readFileSync(file);
      b[b.byteLength - 1] = (b[b.byteLength - 1] ?? 0) ^ 0xff;
      writeFileSync(file, b);
      return last.seq;
    },
  },
  {
    name: 'zero-filled space after the last record',
    tear(file, _last, count) {
      appendFileSync(file, Buffer.alloc(8192));
      return count;
    },
  },
  {
    name: 'a frame header with a bad header checksum followed by zeros',
    tear(file, _last, count) {
      appendFileSync(file, Buffer.concat([Buffer.from([9, 0, 0, 0, 40, 1, 2, 3, 4, 5, 6, 7, 8]), Buffer.alloc(40)]));
      return count;
    },
  },
];

describe('WAL torn tail of the last segment', () => {
  for (const shape of shapes) {
    test(`truncates ${shape.name}, logs file, offset and bytes dropped, and appends after it`, async () => {
      const dir = tempDir();
      const placed = await writeRecords(dir, [200, 3000, 50, 1200, 700], 1 << 20);
      const last = placed.at(-1);
      assert.ok(last);
      const file = last.file;
      const keep = shape.tear(file, last, placed.length);
      const sizeBefore = statSync(file).size;

      const log = memoryLog();
      const { wal, records } = await openCollect({ dir, log, ...quiet });
      assert.deepEqual(records.map((r) => r.payload), placed.slice(0, keep).map((p) => p.payload));
      const warn = log.lines.find((l) => l.level === 'warn');
      assert.ok(warn, 'a log line reports the truncation');
      const goodEnd = keep === placed.length ? last.offset + 13 + last.payload.byteLength : last.offset;
      assert.deepEqual(
        { file: warn.o['file'], offset: warn.o['offset'], bytesDropped: warn.o['bytesDropped'] },
        { file, offset: goodEnd, bytesDropped: sizeBefore - goodEnd },
      );
      assert.equal(statSync(file).size, goodEnd, 'the file is cut at the last whole record');

      wal.append(77, payloadFor(1000, 500));
      await wal.close();
      const log2 = memoryLog();
      const again = await replayAll({ dir, log: log2, ...quiet });
      assert.deepEqual(again.map((r) => r.payload), [...placed.slice(0, keep).map((p) => p.payload), payloadFor(1000, 500)]);
      assert.deepEqual(log2.lines.filter((l) => l.level !== 'info'), [], 'the second open finds nothing to repair');
    });
  }

  test('removes a last segment whose header is cut short, and reuses its number', async () => {
    const dir = tempDir();
    const placed = await writeRecords(dir, [100, 100]);
    const torn = join(dir, String((placed.at(-1)?.segment ?? 0) + 1).padStart(8, '0'));
    writeFileSync(torn, Buffer.from('SWAL\x01'));
    const log = memoryLog();
    const { wal, records } = await openCollect({ dir, log, ...quiet });
    assert.equal(records.length, 2);
    assert.equal(wal.segment, (placed.at(-1)?.segment ?? 0) + 1, 'the torn segment number is taken again');
    assert.ok(log.lines.some((l) => l.level === 'warn' && l.o['file'] === torn && l.o['bytesDropped'] === 5));
    await wal.close();
    assert.ok(existsSync(torn));
    assert.equal((await replayAll({ dir, ...quiet })).length, 2);
  });

  test('accepts an empty or header-only last segment', async () => {
    const dir = tempDir();
    await writeRecords(dir, [10]);
    await writeRecords(dir, []); // a header-only segment
    const names = segmentFiles(dir);
    assert.equal(names.length, 2);
    const log = memoryLog();
    assert.equal((await replayAll({ dir, log, ...quiet })).length, 1);
    assert.deepEqual(log.lines.filter((l) => l.level !== 'info'), []);

    const empty = join(dir, String(names.length + 1).padStart(8, '0'));
    writeFileSync(empty, '');
    assert.equal((await replayAll({ dir, ...quiet })).length, 1, 'an empty last segment is dropped without error');
  });

  test('a zero-filled file header of the last segment counts as torn, not corrupt', async () => {
    const dir = tempDir();
    await writeRecords(dir, [10]);
    writeFileSync(join(dir, '00000001'), Buffer.alloc(4096));
    const wal = await Wal.open({ dir, ...quiet }, () => {});
    assert.equal(wal.segment, 1);
    await wal.close();
  });
});
