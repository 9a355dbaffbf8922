import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mapFile, releasePages } from '../../src/files/mmap.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-mmap-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('a map shows the file, later writes to it included, and survives releasing its pages', () => {
  const fd = openSync(join(dir, 'a'), 'w+');
  writeSync(fd, 'hello');
  // Mapped past the end of the file: the bytes written later show through.
  const map = mapFile(fd, 1 << 16);
  assert.equal(map.subarray(0, 5).toString(), 'hello');
  writeSync(fd, ' world', 5);
  assert.equal(map.subarray(0, 11).toString(), 'hello world');
  releasePages(map);
  assert.equal(map.subarray(0, 11).toString(), 'hello world');
  closeSync(fd);
  assert.equal(map.subarray(0, 5).toString(), 'hello');
});

test('an empty map is an empty Buffer, and a bad descriptor throws with its errno code', () => {
  const fd = openSync(join(dir, 'b'), 'w+');
  assert.equal(mapFile(fd, 0).length, 0);
  closeSync(fd);
  assert.throws(() => mapFile(fd, 4096), (err: NodeJS.ErrnoException) => err.code === 'EBADF' && /mmap/.test(err.message));
});
