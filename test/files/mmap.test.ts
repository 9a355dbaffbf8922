import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mapFile, pageOutFileMappings, populatePages, releasePages } from '../../src/files/mmap.js';

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

test('paging out the read-only file mappings covers the node binary\'s code, and everything runs on after it', () => {
  const map = (() => {
    const fd = openSync(join(dir, 'paged'), 'w+');
    writeSync(fd, 'kept in the file');
    const m = mapFile(fd, 16);
    closeSync(fd);
    return m;
  })();
  const ranges = readFileSync('/proc/self/maps', 'utf8').split('\n').map((l) => l.split(/\s+/)).filter((f) => f[5]?.startsWith('/') && f[1]![1] !== 'w');
  const readOnlyBytes = ranges.reduce((sum, f) => {
    const [start, end] = f[0]!.split('-').map((h) => Number.parseInt(h, 16));
    return sum + (end! - start!);
  }, 0);
  const advised = pageOutFileMappings();
  if (advised === -1) return; // a kernel before 5.4: nothing to check
  // Mappings may come and go between the two reads (a library loaded lazily): within 10 %.
  assert.ok(advised > 0.9 * readOnlyBytes && advised < 1.1 * readOnlyBytes, `advised ${advised} bytes, the read-only file mappings are ${readOnlyBytes}`);
  assert.equal(map.toString(), 'kept in the file');
  assert.equal(JSON.stringify({ still: 'running' }), '{"still":"running"}');
});

test('populatePages faults in whole pages of a WebAssembly memory without changing them, and refuses a range outside it', async () => {
  const memory = new WebAssembly.Memory({ initial: 64 });
  const bytes = new Uint8Array(memory.buffer);
  bytes[5000] = 42;
  // Pages wholly inside [100, 100 + 3 MiB): from 4096 up.
  const populated = await populatePages(memory.buffer, 100, 3 << 20).catch((err: NodeJS.ErrnoException) => {
    assert.equal(err.code, 'EINVAL', 'only a kernel without MADV_POPULATE_WRITE may refuse');
    return undefined;
  });
  if (populated !== undefined) assert.equal(populated, (((100 + (3 << 20)) >> 12) << 12) - 4096);
  assert.equal(bytes[5000], 42);
  assert.equal(bytes[5001], 0);
  assert.throws(() => populatePages(memory.buffer, 0, memory.buffer.byteLength + 1), /a range inside the ArrayBuffer/);
  assert.throws(() => populatePages(memory.buffer, -1, 10), TypeError);
});
