// `strata sidecar`'s flags: Thanos sidecar's names and defaults, clear errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSidecarArgs, type SidecarConfig } from '../../src/cli/sidecar-options.js';
import { UsageError } from '../../src/config/usage-error.js';

const parse = (args: string[]): SidecarConfig => {
  const c = parseSidecarArgs(args);
  assert.notEqual(c, 'help');
  return c as SidecarConfig;
};

test('defaults are Thanos sidecar\'s', () => {
  const c = parse([]);
  assert.equal(c.prometheusUrl, 'http://localhost:9090/');
  assert.equal(c.tsdbPath, './data');
  assert.deepEqual(c.grpcAddress, { host: '0.0.0.0', port: 10901 });
  assert.deepEqual(c.httpAddress, { host: '0.0.0.0', port: 10902 });
  assert.equal(c.readyTimeoutMs, 600_000);
  assert.equal(c.configIntervalMs, 30_000);
  assert.equal(c.configTimeoutMs, 30_000);
  assert.equal(c.objstoreConfig, undefined);
  assert.equal(c.uploadCompacted, false);
  assert.equal(c.ignoreUnequalBlockSize, false);
  assert.equal(c.uploadConcurrency, 2);
});

test('flags are read', () => {
  const c = parse([
    '--prometheus.url', 'http://127.0.0.1:9091', '--tsdb.path', '/x', '--grpc-address', '127.0.0.1:1', '--http-address', ':2',
    '--prometheus.ready_timeout', '30s', '--prometheus.get_config_interval', '1s', '--prometheus.get_config_timeout', '500ms',
    '--shipper.upload-compacted', '--shipper.upload-concurrency', '0', '--objstore.config', 'type: FILESYSTEM\nconfig:\n  directory: /b\n',
  ]);
  assert.equal(c.prometheusUrl, 'http://127.0.0.1:9091/');
  assert.equal(c.tsdbPath, '/x');
  assert.deepEqual(c.httpAddress, { host: '0.0.0.0', port: 2 });
  assert.equal(c.readyTimeoutMs, 30_000);
  assert.equal(c.configIntervalMs, 1000);
  assert.equal(c.configTimeoutMs, 500);
  assert.equal(c.uploadCompacted, true);
  assert.equal(c.uploadConcurrency, 0);
  assert.equal(c.objstoreConfig?.from, '--objstore.config');
});

test('mistakes name the flag', () => {
  const cases: Array<[string[], RegExp]> = [
    [['--prometheus.url', 'localhost:9090'], /--prometheus\.url: 'localhost:9090' is not an http or https URL/],
    [['--prometheus.url', 'not a url'], /--prometheus\.url: 'not a url' is not a URL/],
    [['--tsdb.path', ''], /--tsdb\.path: must not be empty/],
    [['--prometheus.get_config_interval', '0s'], /--prometheus\.get_config_interval: must be longer than 0/],
    [['--prometheus.ready_timeout', 'soon'], /--prometheus\.ready_timeout: 'soon' is not a duration/],
    [['--objstore.config', 'type: GCS2'], /--objstore\.config: /],
    [['--grpc-address', 'nope'], /--grpc-address: 'nope' is not HOST:PORT/],
    [['--shipper.upload-concurrency', 'two'], /--shipper\.upload-concurrency: 'two' is not a whole number/],
    [['extra'], /sidecar: unexpected argument 'extra'/],
  ];
  for (const [args, re] of cases) assert.throws(() => parseSidecarArgs(args), (err: Error) => err instanceof UsageError && re.test(err.message), args.join(' '));
  assert.throws(() => parseSidecarArgs(['--label', 'a=b']), /Unknown option '--label'/);
  assert.equal(parseSidecarArgs(['--help']), 'help');
});
