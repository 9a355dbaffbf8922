// The flags of `strata bench`: parsed in process, and as a user meets them
// (help for every mode; a mistake is one line and exit status 2).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseCompareArgs } from '../../src/bench/compare/options.js';
import { parseRemoteWriteArgs, scrapesFor, type RemoteWriteConfig } from '../../src/bench/remote-write/options.js';
import { parseStoreApiArgs, type StoreApiConfig } from '../../src/bench/store-api/options.js';
import { timeFlag } from '../../src/bench/run/flags.js';
import { UsageError } from '../../src/config/usage-error.js';
import { runStrata } from './support/bench-cli.js';

const URL_FLAG = ['--url', 'http://127.0.0.1:9/api/v1/write'];

function rw(...args: string[]): RemoteWriteConfig {
  const c = parseRemoteWriteArgs([...URL_FLAG, ...args]);
  assert.notEqual(c, 'help');
  return c as RemoteWriteConfig;
}

describe('strata bench flags', () => {
  test('remote-write takes the defaults of its help', () => {
    const c = rw();
    assert.equal(c.durationMs, 30_000);
    assert.equal(c.concurrency, 4);
    assert.equal(c.series, 10_000);
    assert.equal(c.perRequest, 2000);
    assert.equal(c.intervalMs, 15_000);
    assert.equal(c.rate, 0);
    assert.equal(c.retries, 3);
    assert.deepEqual(c.profile, { kind: 'node-exporter' });
    assert.equal(scrapesFor(c), 120);
  });

  test('remote-write reads Go-style durations, counts, the tenant and extra headers', () => {
    const c = rw('--duration', '1m30s', '--concurrency', '16', '--series', '500', '--churn', '0.05', '--histogram-share', '0.25',
      '--tenant', 'team-a', '--header', 'Authorization: Bearer x', '--profile', 'kube', '--json', 'out.json', '--report', 'r.html', '--interval', '30s');
    assert.equal(c.durationMs, 90_000);
    assert.equal(c.concurrency, 16);
    assert.equal(c.churn, 0.05);
    assert.equal(c.histogramShare, 0.25);
    assert.deepEqual(c.headers, { 'THANOS-TENANT': 'team-a', Authorization: 'Bearer x' });
    assert.deepEqual(c.profile, { kind: 'kube' });
    assert.equal(c.json, 'out.json');
    assert.equal(c.report, 'r.html');
    assert.equal(c.intervalMs, 30_000);
    assert.deepEqual(rw('--tenant', 't', '--tenant-header', 'X-Scope-OrgID').headers, { 'X-Scope-OrgID': 't' });
    assert.deepEqual(rw('--profile', 'my.json').profile, { kind: 'file', path: 'my.json' });
  });

  test('remote-write sends remote write by default; --format otlp sends OTLP, gzip unless told otherwise', () => {
    assert.equal(rw().format, 'remote-write');
    const otlp = rw('--format', 'otlp');
    assert.equal(otlp.format, 'otlp');
    assert.equal(otlp.otlpCompression, 'gzip');
    assert.equal(rw('--format', 'otlp', '--otlp-compression', 'none').otlpCompression, 'none');
  });

  test('remote-write watches /-/ready and /metrics on --url\'s host unless told otherwise', () => {
    const c = rw();
    assert.equal(c.readyUrl?.href, 'http://127.0.0.1:9/-/ready');
    assert.equal(c.metricsUrl?.href, 'http://127.0.0.1:9/metrics');
    const vm = rw('--ready-url', 'http://127.0.0.1:8428/health', '--metrics-url', 'none');
    assert.equal(vm.readyUrl?.href, 'http://127.0.0.1:8428/health');
    assert.equal(vm.metricsUrl, undefined);
    assert.equal(rw('--ready-url', 'none').readyUrl, undefined);
  });

  test('compare takes victoria-metrics, the binary\'s name, for victoriametrics', () => {
    const c = parseCompareArgs(['--peers', 'strata,victoria-metrics']);
    assert.notEqual(c, 'help');
    if (c !== 'help') assert.deepEqual(c.peers, ['strata', 'victoriametrics']);
  });

  test('remote-write sizes the load from --samples-per-series, --total-samples or --rate over --duration', () => {
    assert.equal(scrapesFor(rw('--samples-per-series', '7')), 7);
    assert.equal(scrapesFor(rw('--series', '1000', '--total-samples', '2500')), 3);
    assert.equal(scrapesFor(rw('--series', '1000', '--rate', '500', '--duration', '10s')), 5);
  });

  test('remote-write sizes a load given only --duration to outlast it; a count still fixes the load', () => {
    // 2,000,000 samples/s for 5 s over 2000 series: the clock, not 120 samples a series, ends the run.
    assert.equal(scrapesFor(rw('--series', '2000', '--duration', '5s')), 5000);
    assert.equal(rw('--series', '2000', '--duration', '5s').durationGiven, true);
    assert.equal(rw('--series', '2000').durationGiven, false);
    assert.equal(scrapesFor(rw('--series', '2000', '--duration', '5s', '--samples-per-series', '120')), 120);
    assert.equal(scrapesFor(rw('--series', '2000', '--duration', '5s', '--total-samples', '10000')), 5);
    // Bounded: 10 minutes alone would be 1.2 billion samples; 60 million at most.
    assert.equal(scrapesFor(rw('--series', '10000', '--duration', '10m')), 6000);
  });

  test('store-api builds one query per call, selector and label', () => {
    const now = Date.UTC(2026, 0, 1);
    const c = parseStoreApiArgs(['--addr', '127.0.0.1:10901', '--call', 'series,label-values', '--call', 'label-names', '--match', '{job="node"}', '--match', 'up',
      '--label', 'instance', '--label', 'job', '--shards', '4', '--start', 'now-2h', '--end', 'now'], now) as StoreApiConfig;
    assert.equal(c.addr, '127.0.0.1:10901');
    // series x 2 selectors + label-values x 2 selectors x 2 labels + label-names x 2 selectors
    assert.equal(c.queries.length, 2 + 4 + 2);
    const q = c.queries[0]!;
    assert.equal(q.call, 'series');
    assert.deepEqual(q.matchers, [{ type: 0, name: 'job', value: 'node' }]);
    assert.equal(q.shards, 4);
    assert.equal(q.start, now - 7_200_000);
    assert.equal(q.end, now);
    assert.deepEqual(c.queries.filter((x) => x.call === 'label-values').map((x) => x.label), ['instance', 'job', 'instance', 'job']);
  });

  test('store-api reads its queries from a JSON file, and names the place of a mistake', () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-bench-queries-'));
    try {
      const file = join(dir, 'q.json');
      writeFileSync(file, JSON.stringify([
        { call: 'series', match: '{job="node", mode!="idle"}', start: 'now-2h', end: 'now-1h', shards: 3 },
        { call: 'label-values', label: 'instance', limit: 10 },
      ]));
      const now = Date.UTC(2026, 0, 1);
      const c = parseStoreApiArgs(['--addr', '127.0.0.1:1', '--queries', file], now) as StoreApiConfig;
      assert.equal(c.queries.length, 2);
      assert.deepEqual(c.queries[0]!.matchers, [{ type: 0, name: 'job', value: 'node' }, { type: 1, name: 'mode', value: 'idle' }]);
      assert.equal(c.queries[0]!.start, now - 7_200_000);
      assert.equal(c.queries[0]!.end, now - 3_600_000);
      assert.equal(c.queries[0]!.shards, 3);
      assert.equal(c.queries[1]!.label, 'instance');
      assert.equal(c.queries[1]!.limit, 10);
      assert.equal(c.queries[1]!.match, '{__name__=~".+"}');
      writeFileSync(file, JSON.stringify([{ call: 'series' }, { call: 'query_range' }]));
      assert.throws(() => parseStoreApiArgs(['--addr', '127.0.0.1:1', '--queries', file]), /--queries: .*q\.json: \/1\/call/);
      assert.throws(() => parseStoreApiArgs(['--addr', '127.0.0.1:1', '--queries', file, '--match', 'up']), /either in the file or with --call/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('compare takes the old bench:compare defaults', () => {
    const c = parseCompareArgs([]);
    assert.notEqual(c, 'help');
    if (c === 'help') return;
    assert.deepEqual(c.peers, ['strata', 'victoriametrics', 'prometheus']);
    assert.equal(c.series, 100_000);
    assert.equal(c.samplesPerSeries, 120);
    assert.equal(c.perRequest, 2000);
    assert.equal(c.concurrency, 4);
  });

  test('time flags read RFC 3339, Unix seconds and now-DURATION', () => {
    assert.equal(timeFlag('start', '2026-11-24T10:00:00Z'), Date.UTC(2026, 10, 24, 10));
    assert.equal(timeFlag('start', '1764000000'), 1_764_000_000_000);
    assert.equal(timeFlag('start', 'now-1h30m', 10_000_000), 10_000_000 - 5_400_000);
    assert.throws(() => timeFlag('start', 'yesterday'), UsageError);
  });

  const mistakes: Array<[string[], RegExp]> = [
    [['bench', 'remote-write'], /--url is required/],
    [['bench', 'remote-write', '--url', 'ftp://x/'], /--url: 'ftp:\/\/x\/' is not an http/],
    [['bench', 'remote-write', ...URL_FLAG, '--duration', '30'], /--duration: '30'/],
    [['bench', 'remote-write', ...URL_FLAG, '--duration', '0s'], /--duration: must be longer than 0/],
    [['bench', 'remote-write', ...URL_FLAG, '--concurrency', '0'], /--concurrency: 0 is not between 1/],
    [['bench', 'remote-write', ...URL_FLAG, '--series', 'many'], /--series: 'many' is not a whole number/],
    [['bench', 'remote-write', ...URL_FLAG, '--churn', '2'], /--churn: 2 is not between 0 and 1/],
    [['bench', 'remote-write', ...URL_FLAG, '--histogram-share', 'half'], /--histogram-share: 'half' is not a number/],
    [['bench', 'remote-write', ...URL_FLAG, '--profile', 'windows'], /--profile: 'windows'/],
    [['bench', 'remote-write', ...URL_FLAG, '--profile', '/nonexistent/p.json'], /--profile: \/nonexistent\/p.json: no such file/],
    [['bench', 'remote-write', ...URL_FLAG, '--header', 'no colon'], /--header: 'no colon'/],
    [['bench', 'remote-write', ...URL_FLAG, '--bogus'], /'--bogus'/],
    [['bench', 'remote-write', ...URL_FLAG, '--ready-url', '/-/ready'], /--ready-url: '\/-\/ready' is not an http or https URL \(or none\)/],
    [['bench', 'remote-write', ...URL_FLAG, '--format', 'influx'], /--format: 'influx' is not remote-write or otlp/],
    [['bench', 'remote-write', '--url', 'grpc://127.0.0.1:9', '--format', 'otlp'], /--format otlp: OTLP is sent over HTTP/],
    [['bench', 'remote-write', ...URL_FLAG, '--format', 'otlp', '--histogram-share', '0.1'], /--format otlp: native histograms are not sent as OTLP/],
    [['bench', 'remote-write', ...URL_FLAG, '--format', 'otlp', '--otlp-compression', 'zstd'], /--otlp-compression: 'zstd' is not gzip or none/],
    [['bench', 'store-api'], /--addr is required/],
    [['bench', 'store-api', '--addr', 'localhost'], /--addr: 'localhost' is not HOST:PORT/],
    [['bench', 'store-api', '--addr', '127.0.0.1:1', '--call', 'query'], /--call: 'query'/],
    [['bench', 'store-api', '--addr', '127.0.0.1:1', '--match', '{job=~"("}'], /--match: '\{job=~"\("\}'/],
    [['bench', 'store-api', '--addr', '127.0.0.1:1', '--start', 'now', '--end', 'now-1h'], /--end: now-1h is before now/],
    [['bench', 'compare', '--peers', 'influxdb'], /--peers: 'influxdb'/],
    [['bench', 'frobnicate'], /unknown mode 'frobnicate'/],
  ];
  for (const [args, message] of mistakes) {
    test(`exits 2 with one line naming the problem: ${args.slice(1).join(' ')}`, async () => {
      const r = await runStrata(args, 30_000);
      assert.equal(r.code, 2, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, message);
      assert.match(lines[0]!, /^strata: /);
    });
  }

  test('--help of bench and of each mode exits 0 and lists the shared flags', async () => {
    const top = await runStrata(['bench', '--help']);
    assert.equal(top.code, 0);
    for (const mode of ['remote-write', 'store-api', 'compare']) assert.match(top.stdout, new RegExp(`strata bench ${mode}`));
    for (const mode of ['remote-write', 'store-api', 'compare']) {
      const r = await runStrata(['bench', mode, '--help']);
      assert.equal(r.code, 0, r.stderr);
      for (const flag of ['--duration', '--concurrency', '--json', '--report']) assert.ok(r.stdout.includes(flag), `${mode} --help lists ${flag}`);
    }
    const rwHelp = (await runStrata(['bench', 'remote-write', '--help'])).stdout;
    for (const flag of ['--url', '--series', '--profile', '--samples-per-series', '--total-samples', '--churn', '--histogram-share', '--series-per-request', '--rate', '--tenant', '--retries']) {
      assert.ok(rwHelp.includes(flag), `remote-write --help lists ${flag}`);
    }
    assert.match((await runStrata(['--help'])).stdout, /strata bench MODE/);
  });
});
