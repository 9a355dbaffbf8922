/**
 * A wrong start, run as an operator meets it: a second server on a used
 * address, a data directory that cannot be used, a locked one. Each exits
 * 1 with one error line in the logger's format naming the cause, no stack;
 * the first server keeps serving. And `npm start` stops the server on
 * SIGTERM and SIGINT, as Docker and systemd send them.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, killAll, portOf, spawnServe, type ServeProcess } from '../support/serve-process.js';

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/strata.js');
const tmp = mkdtempSync(join(tmpdir(), 'strata-startup-'));
after(async () => {
  await killAll();
  rmSync(tmp, { recursive: true, force: true });
});
let n = 0;
const dataDir = (): string => join(tmp, `data-${n++}`);

/** Runs `strata serve` expected to fail at start: its status and its error lines. */
function failing(args: string[]): { status: number | null; errors: Array<{ msg: string; err?: { code?: string } }>; stderr: string } {
  const r = spawnSync(process.execPath, [bin, 'serve', '--workers', '1', '--log.format=json', ...args], { encoding: 'utf8', timeout: 30_000 });
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  const errors = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; msg: string; err?: { code?: string } }).filter((l) => l.level === 'error');
  return { status: r.status, errors, stderr: r.stderr };
}

function assertOneLine(r: ReturnType<typeof failing>, msg: RegExp): void {
  assert.equal(r.status, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('{')).length, 0, r.stderr);
  assert.equal(r.errors.length, 1, r.stderr);
  assert.match(r.errors[0]!.msg, /^start-up failed: /);
  assert.match(r.errors[0]!.msg, msg);
}

/** Processes whose command line names `dir`. */
function serversOn(dir: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc').filter((f) => /^\d+$/.test(f))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes('strata.js') && cmd.includes(dir)) count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

async function started(p: ServeProcess): Promise<{ http: number; grpc: number }> {
  const line = await p.line('strata started');
  return { http: portOf(line.httpAddress), grpc: portOf(line.grpcAddress) };
}

describe('a wrong start', () => {
  it('a second server on a used HTTP address exits 1 naming it, and the first keeps serving', async () => {
    const first = spawnServe({ dataDir: dataDir() });
    const { http } = await started(first);
    const r = failing(['--data-dir', dataDir(), '--http-address', `127.0.0.1:${http}`, '--grpc-address', '127.0.0.1:0']);
    assertOneLine(r, new RegExp(`HTTP: cannot listen on 127\\.0\\.0\\.1:${http}`));
    for (let i = 0; i < 10; i++) assert.equal((await fetch(`http://127.0.0.1:${http}/-/ready`)).status, 200);
    await first.stop();
  });

  it('a second server on a used gRPC address exits 1 naming it', async () => {
    const first = spawnServe({ dataDir: dataDir() });
    const { grpc, http } = await started(first);
    const r = failing(['--data-dir', dataDir(), '--http-address', '127.0.0.1:0', '--grpc-address', `127.0.0.1:${grpc}`]);
    assertOneLine(r, new RegExp(`gRPC: cannot listen on 127\\.0\\.0\\.1:${grpc} \\(address in use`));
    assert.equal(r.errors[0]!.err?.code, 'EADDRINUSE');
    assert.equal((await fetch(`http://127.0.0.1:${http}/-/ready`)).status, 200);
    await first.stop();
  });

  it('a data directory that cannot be made exits 1 naming the path and the cause', () => {
    const file = join(tmp, `a-file-${n++}`);
    writeFileSync(file, 'not a directory');
    const r = failing(['--data-dir', join(file, 'data'), '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0']);
    assertOneLine(r, /ENOTDIR/);
    assert.equal(r.errors[0]!.err?.code, 'ENOTDIR');
  });

  it('a data directory in use by another server exits 1 naming it', async () => {
    const dir = dataDir();
    const first = spawnServe({ dataDir: dir });
    await started(first);
    const r = failing(['--data-dir', dir, '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0']);
    assertOneLine(r, new RegExp(`data directory .*data-\\d+ is in use by process ${first.child.pid}`));
    await first.stop();
  });
});

describe('npm start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops the server on ${signal} to npm, and the data directory is free again`, async () => {
      const dir = dataDir();
      const npm = spawn('npm', ['start', '--', '--data-dir', dir, '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0', '--workers', '1'], {
        cwd: root, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      npm.stderr!.on('data', (b: Buffer) => { err += b.toString(); });
      const deadline = Date.now() + 30_000;
      while (!err.includes('msg="strata started"') && Date.now() < deadline && npm.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      assert.match(err, /msg="strata started"/);
      assert.equal(serversOn(dir), 1);
      npm.kill(signal);
      const status = await exited(npm);
      assert.equal(status.code, 0, err);
      assert.match(err, /level=info msg=stopped/);
      // The server process is gone...
      assert.equal(serversOn(dir), 0);
      // ...and the next start on the same data directory takes it.
      const next = spawnServe({ dataDir: dir });
      await started(next);
      await next.stop();
    });
  }
});
