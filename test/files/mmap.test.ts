import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { mapFile, pageOutFileMappings, releasePages } from '../../src/files/mmap.js';

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

test('beside another process running the same node binary, the pages it shares are let go too, and the code runs on', async () => {
  // Pages another process maps are not paged out (MADV_PAGEOUT skips them); this process drops its mappings of them.
  const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const nodeBinaryRss = (): number => {
      let inNode = false;
      let kb = 0;
      for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
        const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
        if (m) inNode = m[1] === process.execPath;
        else if (inNode && line.startsWith('Rss:')) kb += Number(/(\d+)/.exec(line)![1]);
      }
      return kb;
    };
    const before = nodeBinaryRss();
    assert.ok(before > 4096, `the node binary's resident pages before: ${before} kB`);
    if (pageOutFileMappings() === -1) return; // a kernel before 5.4: nothing to check
    const afterwards = nodeBinaryRss();
    assert.ok(afterwards < before / 2, `the node binary's resident pages: ${before} kB before, ${afterwards} kB after`);
    assert.equal(JSON.stringify([1, 'two', { three: 3 }]), '[1,"two",{"three":3}]');
    assert.equal(createHash('sha256').update('runs on').digest('hex').length, 64);
  } finally {
    other.kill();
  }
});
