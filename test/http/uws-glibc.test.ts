import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createMemoryFile } from '../../src/files/mmap.js';
import { ElfAdaptError, NEWER_GLIBC, relaxVersionNeed, SUPPLIED_FUNCTIONS, wantsNewerGlibc } from '../../src/http/uws-glibc.js';
import { uws, uwsAdaptation } from '../../src/http/uws.js';

const packageDir = dirname(createRequire(import.meta.url).resolve('uWebSockets.js'));
const node24Binary = (): Buffer => readFileSync(join(packageDir, 'uws_linux_x64_137.node'));

function readelf(args: string[], file: Buffer): string | undefined {
  const fd = createMemoryFile('readelf-input');
  try {
    writeSync(fd, file);
    return execFileSync('readelf', [...args, `/proc/${process.pid}/fd/${fd}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  } finally {
    closeSync(fd);
  }
}

test('the Node 24 binary needs GLIBC_2.38 for the three C23 functions only, and the adapted copy asks for them without a version', () => {
  const original = node24Binary();
  const adapted = Buffer.from(original);
  const relaxed = relaxVersionNeed(adapted, NEWER_GLIBC, SUPPLIED_FUNCTIONS);
  assert.equal(relaxed.changed, true);
  assert.deepEqual([...relaxed.symbols].sort(), [...SUPPLIED_FUNCTIONS].sort());

  // Only existing bytes change: one version index per symbol (2 bytes) and one flags field.
  assert.equal(adapted.length, original.length);
  let differing = 0;
  for (let i = 0; i < original.length; i++) if (original[i] !== adapted[i]) differing++;
  assert.ok(differing >= 4 && differing <= 2 * SUPPLIED_FUNCTIONS.size + 2, `${differing} bytes changed`);

  // binutils' reading of both, where it is installed.
  const before = readelf(['--dyn-syms', '-W'], original);
  const after = readelf(['--dyn-syms', '-W'], adapted);
  const versions = readelf(['-V', '-W'], adapted);
  if (before !== undefined && after !== undefined && versions !== undefined) {
    for (const symbol of SUPPLIED_FUNCTIONS) {
      assert.match(before, new RegExp(`${symbol}@GLIBC_2\\.38`));
      assert.doesNotMatch(after, new RegExp(`${symbol}@`));
      assert.match(after, new RegExp(`UND ${symbol}\\b`));
    }
    assert.match(versions, /Name: GLIBC_2\.38\s+Flags: WEAK/);
    assert.doesNotMatch(after, /@GLIBC_2\.38/);
  }
});

test('a binary that needs more of the newer glibc than what is supplied is refused, naming the symbol', () => {
  const allowed = new Set([...SUPPLIED_FUNCTIONS].filter((name) => name !== '__isoc23_sscanf'));
  assert.throws(() => relaxVersionNeed(node24Binary(), NEWER_GLIBC, allowed), (err: Error) => err instanceof ElfAdaptError && /__isoc23_sscanf needs GLIBC_2\.38/.test(err.message));
});

test('a binary that does not ask for the version is left alone', () => {
  const original = readFileSync(join(packageDir, 'uws_linux_x64_115.node'));
  const copy = Buffer.from(original);
  assert.deepEqual(relaxVersionNeed(copy, NEWER_GLIBC, SUPPLIED_FUNCTIONS), { symbols: [], changed: false });
  assert.ok(copy.equals(original));
});

test('what is not a 64-bit little-endian ELF shared object, or is cut short, is refused with a clear error', () => {
  assert.throws(() => relaxVersionNeed(Buffer.from('#!/bin/sh\nexit 0\n'.padEnd(80)), NEWER_GLIBC, SUPPLIED_FUNCTIONS), /not an ELF file/);
  const elf32 = Buffer.alloc(80);
  elf32.writeUInt32BE(0x7f454c46, 0);
  elf32[4] = 1;
  elf32[5] = 1;
  assert.throws(() => relaxVersionNeed(elf32, NEWER_GLIBC, SUPPLIED_FUNCTIONS), /not a 64-bit little-endian ELF file/);
  const cut = node24Binary().subarray(0, 4096);
  assert.throws(() => relaxVersionNeed(Buffer.from(cut), NEWER_GLIBC, SUPPLIED_FUNCTIONS), ElfAdaptError);
});

test('only the loader refusing GLIBC_2.38 counts as a reason to adapt', () => {
  assert.equal(wantsNewerGlibc(new Error("/x/uws_linux_x64_137.node: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found (required by /x/uws_linux_x64_137.node)")), true);
  assert.equal(wantsNewerGlibc(new Error("version `GLIBC_2.39' not found")), false);
  assert.equal(wantsNewerGlibc(new Error('Cannot find module')), false);
  assert.equal(wantsNewerGlibc('GLIBC_2.38'), false);
});

test('the binding in use is the adapted copy exactly where this Node and glibc need it, and it serves', async () => {
  const binding = uws();
  const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime;
  const older = glibc !== undefined && glibc.localeCompare('2.38', undefined, { numeric: true }) < 0;
  const needsAdapting = process.platform === 'linux' && process.arch === 'x64' && process.versions.modules === '137' && older;
  assert.equal(uwsAdaptation() !== undefined, needsAdapting, `Node ${process.version}, glibc ${glibc}: ${uwsAdaptation()}`);

  const app = binding.App();
  app.get('/*', (res) => {
    res.end(`served by ${process.version}`);
  });
  const socket = await new Promise<NonNullable<Parameters<Parameters<typeof app.listen>[2]>[0]>>((resolve, reject) => {
    app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('listen failed'))));
  });
  try {
    const answer = await fetch(`http://127.0.0.1:${binding.us_socket_local_port(socket)}/`);
    assert.equal(answer.status, 200);
    assert.equal(await answer.text(), `served by ${process.version}`);
  } finally {
    binding.us_listen_socket_close(socket);
  }
});

test('a memory file holds what is written and is readable through /proc', () => {
  const fd = createMemoryFile('strata-test');
  try {
    writeSync(fd, 'in memory');
    assert.equal(readFileSync(`/proc/self/fd/${fd}`, 'utf8'), 'in memory');
  } finally {
    closeSync(fd);
  }
});
