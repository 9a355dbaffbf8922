// The strata command as a user runs it: a separate process, built code.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const bin = new URL('../../bin/strata.js', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function strata(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('strata CLI', () => {
  test('--version prints the package version', () => {
    const r = strata('--version');
    assert.equal(r.status, 0);
    assert.equal(r.stdout.trim(), pkg.version);
  });

  test('--help and serve --help list the commands and every flag', () => {
    const top = strata('--help');
    assert.equal(top.status, 0);
    assert.match(top.stdout, /strata serve/);
    const serve = strata('serve', '--help');
    assert.equal(serve.status, 0);
    for (const flag of ['--tsdb.path', '--data-dir', '--grpc-address', '--http-address', '--label', '--replica-label', '--workers', '--env', '--tsdb.retention', '--retention', '--tsdb.max-retention-bytes', '--retention-size',
      '--receive.tenant-label-name', '--tenant-label-name', '--receive.default-tenant-id', '--remote-write.address',
      '--http-grace-period', '--grpc-grace-period', '--log.level', '--log.format', '--wal-fsync-interval', '--tsdb.max-exemplars',
      '--tsdb.out-of-order.time-window', '--tsdb.too-far-in-future.time-window']) {
      assert.ok(serve.stdout.includes(flag), `serve --help lists ${flag}`);
    }
  });

  const mistakes: Array<[string[], RegExp]> = [
    [['serve', '--bogus'], /'--bogus'/],
    [['--bogus'], /'--bogus'/],
    [['frobnicate'], /'frobnicate'/],
    [['serve', '--workers', 'two'], /--workers: 'two'/],
    [['serve', '--workers', '0'], /--workers: '0'/],
    [['serve', '--env', 'staging'], /--env: 'staging'/],
    [['serve', '--label', 'region'], /--label: 'region'/],
    [['serve', '--label', '1x=a'], /--label: '1x=a'/],
    [['serve', '--label', 'a="1"', '--label', 'a="2"'], /--label: 'a' given twice/],
    [['serve', '--replica-label', 'bad-name'], /--replica-label: 'bad-name'/],
    [['serve', '--grpc-address', 'localhost'], /--grpc-address: 'localhost'/],
    [['serve', '--http-address', '127.0.0.1:70000'], /--http-address: '127.0.0.1:70000'/],
    [['serve', '--data-dir'], /--tsdb.path/],
    [['serve', '--retention', '15days'], /--tsdb.retention: '15days'/],
    [['serve', '--tsdb.retention', '0s'], /--tsdb.retention: '0s': 0 \(Thanos: keep forever\) is not supported/],
    [['serve', '--data-dir', 'a', '--tsdb.path', 'b'], /--tsdb.path and --data-dir are one flag/],
    [['serve', '--label', 'region="eu'], /--label: 'region="eu'/],
    [['serve', '--log.level', 'verbose'], /--log.level: 'verbose'/],
    [['serve', '--log.format', 'text'], /--log.format: 'text'/],
    [['serve', '--http-grace-period', 'soon'], /--http-grace-period: 'soon'/],
    [['serve', '--remote-write.address', 'nowhere'], /--remote-write.address: 'nowhere'/],
    [['serve', '--wal-fsync-interval', '1.5s'], /--wal-fsync-interval: '1.5s'/],
    [['serve', '--tsdb.max-exemplars', 'lots'], /--tsdb.max-exemplars: 'lots'/],
    [['serve', '--tsdb.out-of-order.time-window', '4 hours'], /--tsdb.out-of-order.time-window: '4 hours'/],
    [['serve', '--tsdb.too-far-in-future.time-window=-1h'], /--tsdb.too-far-in-future.time-window: '-1h'/],
    [['serve', '--tsdb.max-exemplars', '1000000000'], /--tsdb.max-exemplars: 1000000000 is more than/],
  ];
  for (const [args, names] of mistakes) {
    test(`exits 2 with one line naming the problem: ${args.join(' ')}`, () => {
      const r = strata(...args);
      assert.equal(r.status, 2);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, names);
      // Each command's mistakes point to its own help.
      const help = args[0] === 'serve' ? 'strata serve --help' : 'strata --help';
      assert.ok(r.stderr.includes(`(see ${help})`), r.stderr);
    });
  }

  test('sidecar mistakes point to strata sidecar --help', () => {
    const r = strata('sidecar', '--log.level', 'loud');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--log\.level: 'loud'.*\(see strata sidecar --help\)/);
  });

  test('serve starts on its flags and stops with status 0 on SIGTERM', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'strata-cli-')), 'data');
    const child = spawn(process.execPath, [bin, 'serve', '--data-dir', dir, '--workers', '1',
      '--label', 'region="eu-west"', '--replica-label', 'replica', '--grpc-address', '127.0.0.1:0', '--http-address', '127.0.0.1:0', '--log.format', 'json']);
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    const deadline = Date.now() + 20_000;
    while (!stderr.includes('strata started') && Date.now() < deadline && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(stderr, /"msg":"strata started"/);
    const started = JSON.parse(stderr.split('\n').find((l) => l.includes('strata started'))!);
    assert.deepEqual(started.externalLabels, { region: 'eu-west' });
    assert.equal(started.workers, 1);
    assert.ok(existsSync(dir), 'the data directory is created');
    assert.equal(started.retention, 15 * 86_400_000, 'retention defaults to 15d');
    for (const sub of ['wal', 'chunks_head', 'records']) assert.ok(existsSync(join(dir, sub)), `DATA/${sub} is created`);
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});
