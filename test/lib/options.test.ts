/**
 * Strata.open's options and `strata serve`'s flags stay in step: every
 * flag has its option (camelCase of the flag), and the CLI's parsed flags
 * come out of the library's option checks unchanged (the CLI opens its
 * store through those options: src/cli/serve.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { parseServeArgs, serveOptions as serveFlags, type ServeConfig } from '../../src/cli/serve-options.js';
import { serveOptions } from '../../src/cli/serve.js';
import { createLogger } from '../../src/cli/logger.js';
import { OPTION_NAMES, resolveOptions } from '../../src/lib/resolve-options.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-options-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Flags whose option is not their plain camelCase: repeatable flags take a
 * plural, --label says what it labels, Thanos' names keep the options'
 * older names, and the log flags make the logger the `log` option is.
 */
const RENAMED: Record<string, string> = {
  label: 'externalLabels', 'replica-label': 'replicaLabels', 'tsdb.path': 'dataDir', 'tsdb.retention': 'retention',
  'tsdb.max-retention-bytes': 'retentionSize', 'receive.tenant-label-name': 'tenantLabelName', 'log.level': 'log', 'log.format': 'log',
};
const camel = (flag: string): string => flag.replace(/[.-]([a-z])/g, (_, c: string) => c.toUpperCase());

test('every serve flag has its option, and every option its flag', () => {
  const fromFlags = new Set<string>();
  for (const flag of Object.keys(serveFlags)) {
    if (flag === 'help') continue;
    const option = RENAMED[flag] ?? camel(flag);
    assert.ok(OPTION_NAMES.has(option), `--${flag} has no option ${option}`);
    fromFlags.add(option);
  }
  assert.deepEqual([...OPTION_NAMES].filter((o) => !fromFlags.has(o)), []);
});

test('the CLI\'s parsed flags pass through the options unchanged', () => {
  const file = (name: string, text: string): string => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const limits = file('limits.yaml', 'write:\n  default:\n    head_series_limit: 1000\n');
  const cert = file('cert.pem', 'x');
  const key = file('key.pem', 'x');
  const config = parseServeArgs([
    '--data-dir', join(dir, 'data'), '--grpc-address', '[::1]:10901', '--http-address', ':8080',
    '--label', 'region="eu"', '--label', 'cluster="a"', '--replica-label', 'replica', '--workers', '3', '--env', 'development',
    '--retention', '2d', '--retention-size', '10GB', '--compaction', 'false', '--wal-fsync-interval', '0s',
    '--objstore.config', `type: FILESYSTEM\nconfig:\n  directory: ${join(dir, 'bucket')}\n`,
    '--shipper.upload-concurrency', '4', '--tenant-label-name', 'tenant', '--grpc-max-recv-bytes', '1000', '--http-max-body-bytes', '2000',
    '--store.limits.request-series', '5', '--store.limits.request-samples', '6',
    '--grpc-server-tls-cert', cert, '--grpc-server-tls-key', key, '--http-server-tls-cert', cert, '--http-server-tls-key', key, '--http-server-tls-client-ca', cert,
    '--receive.limits-config-file', limits, '--receive.limits-config-reload-timer', '5s', '--receive.heap-limit-ratio', '0.5', '--receive.memory-limit', '1GB',
    '--tsdb.out-of-order.time-window', '1h', '--tsdb.too-far-in-future.time-window', '5m', '--tsdb.max-exemplars', '7',
    '--receive.default-tenant-id', 'team-z', '--http-grace-period', '30s', '--grpc-grace-period', '0s', '--remote-write.address', '127.0.0.1:19291',
  ]) as ServeConfig;
  const r = resolveOptions(serveOptions(config, createLogger({ level: 'info', format: 'json' })));
  assert.equal(r.dataDir, resolve(config.dataDir));
  assert.deepEqual(r.grpcAddress, config.grpcAddress);
  assert.deepEqual(r.httpAddress, config.httpAddress);
  assert.deepEqual(r.externalLabels, config.externalLabels);
  assert.deepEqual(r.replicaLabels, config.replicaLabels);
  assert.deepEqual(r.bucket, config.objstoreConfig!.bucket);
  assert.equal(r.shipperUploadConcurrency, 4);
  assert.deepEqual(r.grpcTls, config.grpcTls);
  assert.deepEqual(r.httpTls, config.httpTls);
  assert.deepEqual(r.writeLimits, config.writeLimits);
  assert.deepEqual(r.remoteWriteAddress, config.remoteWriteAddress);
  assert.deepEqual([r.receiveDefaultTenantId, r.httpGraceMs, r.grpcGraceMs], ['team-z', 30_000, 0]);
  assert.deepEqual(
    [r.workers, r.env, r.retentionMs, r.retentionBytes, r.compaction, r.walFsyncIntervalMs, r.tenantLabelName, r.grpcMaxRecvBytes, r.httpMaxBodyBytes,
      r.limitRequestSeries, r.limitRequestSamples, r.outOfOrderWindowMs, r.tooFarInFutureMs, r.maxExemplars],
    [config.workers, config.env, config.retentionMs, config.retentionBytes, config.compaction, config.walFsyncIntervalMs, config.tenantLabelName,
      config.grpcMaxRecvBytes, config.httpMaxBodyBytes, config.limitRequestSeries, config.limitRequestSamples, config.tsdb.outOfOrderWindowMs,
      config.tsdb.tooFarInFutureMs, config.maxExemplars],
  );
});

test('takes the configurations as YAML text or as the object it describes', () => {
  const bucket = { type: 'FILESYSTEM', config: { directory: join(dir, 'bucket') } };
  const limits = { write: { default: { head_series_limit: 10 } } };
  const a = resolveOptions({ dataDir: 'd', objstoreConfig: bucket, receiveLimitsConfig: limits });
  const b = resolveOptions({ dataDir: 'd', objstoreConfig: `type: FILESYSTEM\nconfig:\n  directory: ${join(dir, 'bucket')}\n`, receiveLimitsConfig: 'write:\n  default:\n    head_series_limit: 10\n' });
  assert.deepEqual(a.bucket, b.bucket);
  assert.deepEqual(a.writeLimits.source?.loaded.config, b.writeLimits.source?.loaded.config);
  assert.equal(a.writeLimits.source?.loaded.config.defaults.headSeries, 10);
});

test('shipperUploadConcurrency is a whole number of at least 0, 2 when not given', () => {
  assert.equal(resolveOptions({ dataDir: 'd' }).shipperUploadConcurrency, 2);
  assert.equal(resolveOptions({ dataDir: 'd', shipperUploadConcurrency: 0 }).shipperUploadConcurrency, 0);
  assert.throws(() => resolveOptions({ dataDir: 'd', shipperUploadConcurrency: -1 }), /shipperUploadConcurrency: -1 is not a whole number of at least 0/);
  assert.throws(() => resolveOptions({ dataDir: 'd', shipperUploadConcurrency: 1.5 }), /shipperUploadConcurrency: 1.5 is not a whole number/);
});
