import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { compressSync, uncompressSync } from 'snappy';
import { join } from 'node:path';
import { limitNativeHeap, mapFile, pageOutFileMappings, releasePages } from '../../src/files/mmap.js';

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

test('beside another process mapping the same library, the pages it shares are let go too, and the code runs on', async () => {
  // snappy's native library, touched here and in a child process: its code pages are mapped by both, which
  // MADV_PAGEOUT skips; this process drops its own mappings of them, and they are not touched again here.
  compressSync(Buffer.from('touch the library here'));
  const other = spawn(process.execPath, ['-e', "require('snappy').compressSync(Buffer.from('and there')); process.stdout.write('ready'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    await new Promise<void>((resolve, reject) => {
      other.stdout!.once('data', () => resolve());
      other.once('exit', (code) => reject(new Error(`the other process exited (${code})`)));
    });
    /** Resident kB of this process' read-only private mappings of snappy's library. */
    const libraryRss = (): number => {
      let library = false;
      let rss = 0;
      let kb = 0;
      for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
        const m = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
        if (m) library = m[1]![1] !== 'w' && m[1]![3] === 'p' && /snappy[^/]*\.node$/.test(m[2]!);
        else if (line.startsWith('Rss:')) rss = Number(/(\d+)/.exec(line)![1]);
        // Counted once its Anonymous line says it holds no copied page (relocated data made read-only does).
        else if (library && line.startsWith('Anonymous:') && Number(/(\d+)/.exec(line)![1]) === 0) kb += rss;
      }
      return kb;
    };
    const before = libraryRss();
    assert.ok(before > 0, 'snappy\'s library is resident before');
    if (pageOutFileMappings() === -1) return; // a kernel before 5.4: nothing to check
    assert.equal(libraryRss(), 0, `snappy's library: ${before} kB resident before`);
    assert.equal(JSON.stringify([1, 'two', { three: 3 }]), '[1,"two",{"three":3}]');
    assert.equal(uncompressSync(compressSync(Buffer.from('runs on'))).toString(), 'runs on');
  } finally {
    other.kill();
  }
});

test('limitNativeHeap sets glibc\'s mmap threshold, and refuses a number that is not positive', () => {
  const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
  assert.equal(limitNativeHeap(1 << 20), report.header.glibcVersionRuntime !== undefined);
  assert.throws(() => limitNativeHeap(0), TypeError);
  assert.throws(() => limitNativeHeap(-1), TypeError);
  // Memory still comes and goes: a block above the threshold and many below it.
  const big = Buffer.alloc(4 << 20, 1);
  const small = Array.from({ length: 1000 }, () => Buffer.alloc(4096, 2));
  assert.equal(big[big.length - 1]! + small[999]![4095]!, 3);
});
