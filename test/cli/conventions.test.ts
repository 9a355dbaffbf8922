// Thanos' and Prometheus' conventions in `strata serve` / `strata sidecar`: flag names and their aliases,
// --label values as Thanos reads them, --log.level and --log.format.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseServeArgs, type ServeConfig } from '../../src/cli/serve-options.js';
import { parseSidecarArgs } from '../../src/cli/sidecar-options.js';
import { parseLabelFlag } from '../../src/cli/label-flag.js';
import { goUnquote } from '../../src/config/go-unquote.js';
import { toLogfmt } from '../../src/cli/logfmt.js';
import { UsageError } from '../../src/config/usage-error.js';

const bin = new URL('../../bin/strata.js', import.meta.url).pathname;

function serve(...args: string[]): ServeConfig {
  const c = parseServeArgs(['--workers', '1', ...args]);
  assert.notEqual(c, 'help');
  return c as ServeConfig;
}

describe('serve flag aliases: the earlier names give the same options as Thanos Receive\'s', () => {
  const pairs: Array<[string, string, string, (c: ServeConfig) => unknown]> = [
    ['--tsdb.path', '--data-dir', 'somewhere', (c) => c.dataDir],
    ['--tsdb.retention', '--retention', '3d', (c) => c.retentionMs],
    ['--tsdb.max-retention-bytes', '--retention-size', '512MB', (c) => c.retentionBytes],
    ['--receive.tenant-label-name', '--tenant-label-name', 'team', (c) => c.tenantLabelName],
  ];
  for (const [name, alias, value, pick] of pairs) {
    test(`${alias} is ${name}`, () => {
      const byName = serve(name, value);
      assert.deepEqual(serve(alias, value), byName);
      assert.deepEqual(serve(`${alias}=${value}`), byName);
      // The value given took effect: it differs from the default.
      assert.notDeepEqual(pick(byName), pick(serve()));
    });
    test(`${name} and ${alias} together are refused`, () => {
      assert.throws(() => serve(name, value, alias, value), (e: unknown) => e instanceof UsageError && e.message.includes('are one flag'));
    });
  }
  test('the values land where Thanos puts them', () => {
    const c = serve('--data-dir', 'd', '--retention', '3d', '--retention-size', '1KB', '--tenant-label-name', 'team');
    assert.equal(c.dataDir, 'd');
    assert.equal(c.retentionMs, 3 * 86_400_000);
    assert.equal(c.retentionBytes, 1024);
    assert.equal(c.tenantLabelName, 'team');
  });
  test('an argument after -- is not renamed', () => {
    assert.throws(() => serve('--', '--data-dir'), /unexpected argument '--data-dir'/);
  });
});

describe('Thanos Receive\'s other serve flags', () => {
  test('defaults: default-tenant, grace periods 2m, remote write on the HTTP address, logfmt at info', () => {
    const c = serve();
    assert.equal(c.defaultTenantId, 'default-tenant');
    assert.equal(c.httpGraceMs, 120_000);
    assert.equal(c.grpcGraceMs, 120_000);
    assert.equal(c.remoteWriteAddress, undefined);
    assert.deepEqual(c.log, { level: 'info', format: 'logfmt' });
  });
  test('given', () => {
    const c = serve('--receive.default-tenant-id', 'team-a', '--http-grace-period', '5s', '--grpc-grace-period', '0s',
      '--remote-write.address', '127.0.0.1:19291', '--log.level', 'warn', '--log.format', 'json');
    assert.equal(c.defaultTenantId, 'team-a');
    assert.equal(c.httpGraceMs, 5000);
    assert.equal(c.grpcGraceMs, 0);
    assert.deepEqual(c.remoteWriteAddress, { host: '127.0.0.1', port: 19291 });
    assert.deepEqual(c.log, { level: 'warn', format: 'json' });
  });
  test('--env development logs at debug unless --log.level says otherwise', () => {
    assert.equal(serve('--env', 'development').log.level, 'debug');
    assert.equal(serve('--env', 'development', '--log.level', 'error').log.level, 'error');
  });
  test('sidecar takes the same log flags', () => {
    const c = parseSidecarArgs(['--log.level', 'debug', '--log.format', 'json']);
    assert.notEqual(c, 'help');
    assert.deepEqual((c as { log: unknown }).log, { level: 'debug', format: 'json' });
    assert.throws(() => parseSidecarArgs(['--log.format', 'journald']), /--log.format: 'journald'/);
  });
});

describe('--label as Thanos parses it', () => {
  const good: Array<[string, [string, string]]> = [
    ['region="eu-west"', ['region', 'eu-west']],
    ['a="x=y"', ['a', 'x=y']],
    ['a="say \\"hi\\""', ['a', 'say "hi"']],
    ['a="tab\\there"', ['a', 'tab\there']],
    ['a="\\u00e9t\\xc3\\xa9"', ['a', 'été']],
    ['a="\\101"', ['a', 'A']],
    ['a=`raw \\n`', ['a', 'raw \\n']],
    ["a='x'", ['a', 'x']],
  ];
  for (const [flag, want] of good) test(`${flag}`, () => assert.deepEqual(parseLabelFlag(flag), want));

  const bad = ['region', 'region=eu-west', '1x="a"', 'a="eu', 'a="x"y"', 'a="\\q"', 'a="\\x4"', 'a="\\ud800"', 'a="\\400"', "a='xy'",
    'a="\\xff"', 'a=""', 'a=', 'a="a\nb"'];
  for (const flag of bad) {
    test(`refused: ${JSON.stringify(flag)}`, () => {
      assert.throws(() => parseLabelFlag(flag), (e: unknown) => e instanceof UsageError && e.message.startsWith('--label: '));
    });
  }
  test('the values reach the external labels, sorted', () => {
    assert.deepEqual(serve('--label', 'zone="b"', '--label', 'region="eu west"').externalLabels, [['region', 'eu west'], ['zone', 'b']]);
  });
  test('goUnquote drops carriage returns in raw strings, as Go does', () => {
    assert.equal(goUnquote('`a\r\nb`'), 'a\nb');
  });
});

describe('logfmt lines in go-kit\'s order', () => {
  test('ts, level, msg first; quoting where go-logfmt quotes; nested fields dotted', () => {
    const line = toLogfmt('{"level":"error","ts":"2026-11-28T23:00:00.000Z","err":{"code":"EADDRINUSE","type":"Error"},"n":3,"msg":"start-up failed: address in use"}');
    assert.equal(line, 'ts=2026-11-28T23:00:00.000Z level=error msg="start-up failed: address in use" err.code=EADDRINUSE err.type=Error n=3\n');
  });
  test('values with =, quotes or control characters are quoted; arrays are JSON', () => {
    const line = toLogfmt('{"level":"info","ts":"t","msg":"x","a":"k=v","b":"say \\"hi\\"","c":["x","y"],"d":""}');
    assert.equal(line, 'ts=t level=info msg=x a="k=v" b="say \\"hi\\"" c="[\\"x\\",\\"y\\"]" d=""\n');
  });
});

/** Runs `strata serve` with `args` until it has started, stops it, and gives its stderr. */
async function startAndStop(args: string[]): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'strata-log-')), 'data');
  const child = spawn(process.execPath, [bin, 'serve', '--tsdb.path', dir, '--workers', '1',
    '--grpc-address', '127.0.0.1:0', '--http-address', '127.0.0.1:0', '--http-grace-period', '1s', '--grpc-grace-period', '1s', ...args]);
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
  const deadline = Date.now() + 20_000;
  while (!stderr.includes('strata started') && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0, stderr);
  return stderr;
}

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** One logfmt line as key/value pairs (quoted values JSON-unescaped). */
function logfmtPairs(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of line.matchAll(/([^\s=]+)=("(?:[^"\\]|\\.)*"|\S*)/g)) out[m[1]!] = m[2]!.startsWith('"') ? JSON.parse(m[2]!) as string : m[2]!;
  return out;
}

describe('strata serve logs as Thanos does', () => {
  test('logfmt by default: ts in RFC 3339, level names, msg', async () => {
    const lines = (await startAndStop(['--label', 'region="eu-west"'])).split('\n').filter((l) => l !== '');
    assert.ok(lines.length >= 3);
    for (const line of lines) {
      assert.match(line, /^ts=\S+ level=(debug|info|warn|error) msg=/, line);
      const kv = logfmtPairs(line);
      assert.match(kv.ts!, RFC3339);
    }
    const started = logfmtPairs(lines.find((l) => l.includes('msg="strata started"'))!);
    assert.equal(started.level, 'info');
    assert.equal(started['externalLabels.region'], 'eu-west');
    assert.ok(lines.some((l) => /level=info msg=stopped$/.test(l)));
  });
  test('--log.format json: one object a line with level names and RFC 3339 ts', async () => {
    const lines = (await startAndStop(['--log.format', 'json'])).split('\n').filter((l) => l !== '');
    for (const line of lines) {
      const o = JSON.parse(line) as { level: string; ts: string; msg: string };
      assert.ok(['debug', 'info', 'warn', 'error'].includes(o.level), line);
      assert.match(o.ts, RFC3339);
      assert.equal(typeof o.msg, 'string');
    }
    assert.ok(lines.some((l) => l.includes('"msg":"strata started"')));
  });
  test('--log.level error leaves out info lines; debug adds the stack to a start-up failure', async () => {
    // A taken HTTP port: start-up fails at once, with one error line.
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as AddressInfo).port;
    try {
      const fail = (level: string) => spawnSync(process.execPath, [bin, 'serve', '--tsdb.path', join(mkdtempSync(join(tmpdir(), 'strata-log-')), 'data'),
        '--workers', '1', '--grpc-address', '127.0.0.1:0', '--http-address', `127.0.0.1:${port}`, '--log.level', level], { encoding: 'utf8', timeout: 30_000 });
      const error = fail('error');
      assert.equal(error.status, 1);
      const lines = error.stderr.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, 1, error.stderr);
      const kv = logfmtPairs(lines[0]!);
      assert.equal(kv.level, 'error');
      assert.match(kv.msg!, /^start-up failed: /);
      assert.equal(kv['err.type'], 'ListenError');
      assert.equal(kv['err.stack'], undefined);
      const debug = fail('debug');
      assert.equal(debug.status, 1);
      const failed = logfmtPairs(debug.stderr.split('\n').find((l) => l.includes('start-up failed'))!);
      assert.match(failed['err.stack']!, /^ListenError: .*\n    at /s);
    } finally {
      taken.close();
    }
  });
});

describe('--tsdb.memory-snapshot-on-shutdown takes Thanos\' (kingpin\'s) boolean spellings', () => {
  const cases: Array<[string[], boolean]> = [
    [[], true],
    [['--tsdb.memory-snapshot-on-shutdown'], true],
    [['--no-tsdb.memory-snapshot-on-shutdown'], false],
    [['--tsdb.memory-snapshot-on-shutdown=false'], false],
    [['--tsdb.memory-snapshot-on-shutdown', 'false'], false],
    [['--tsdb.memory-snapshot-on-shutdown', '--tsdb.path', 'x'], true],
  ];
  for (const [args, want] of cases) {
    test(`${args.join(' ') || '(not given)'}: ${want}`, () => assert.equal(serve(...args).memorySnapshotOnShutdown, want));
  }
  test('a value other than true or false is refused', () => {
    assert.throws(() => serve('--tsdb.memory-snapshot-on-shutdown=yes'), UsageError);
  });
});
