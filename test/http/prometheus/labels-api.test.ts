// GET (and POST) /api/v1/labels, /api/v1/label/:name/values, /api/v1/series
// as Grafana uses them, black box: Prometheus' shapes, match[], start/end,
// limit, tenants.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, type Answer } from '../support/http-client.js';
import { bitsOf, postWrite, samples, type Series } from './support/prom-wire.js';
import { removeTempDirs, serve, stopAll, type Served } from './support/serve.js';

const T0 = 1_700_000_000_000; // 2023-11-14T22:13:20Z
const HOUR = 3_600_000;
const STEP = 15_000;
let strata: Served;

const at = (t0: number, n = 10): Series['samples'] => samples(n, t0, STEP, (i) => bitsOf(i));
const SERIES: Series[] = [
  { labels: [['__name__', 'api_up'], ['instance', 'i1'], ['job', 'api']], samples: at(T0) },
  { labels: [['__name__', 'api_up'], ['instance', 'i2'], ['job', 'db']], samples: at(T0 + HOUR) },
  { labels: [['__name__', 'api_requests'], ['code', '200'], ['job', 'api'], ['path', '/x']], samples: at(T0) },
  { labels: [['__name__', 'api_dotted'], ['http.status', 'ok']], samples: at(T0) },
];

before(async () => {
  strata = await serve();
  const a = await postWrite(strata.base, SERIES);
  assert.equal(a.status, 204, a.text);
  const b = await postWrite(strata.base, [{ labels: [['__name__', 'api_up'], ['job', 'x'], ['team', 'x']], samples: at(T0) }], { tenant: 'team-x' });
  assert.equal(b.status, 204, b.text);
});

after(async () => {
  await stopAll();
  removeTempDirs();
});

/** GET `path` with query parameters (repeatable as arrays). */
function get(path: string, params: Record<string, string | string[]> = {}, headers: Record<string, string> = {}): Promise<Answer> {
  return call(strata.base, 'GET', `${path}?${form(params)}`, { headers });
}

function form(params: Record<string, string | string[]>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const x of [v].flat()) q.append(k, x);
  return q.toString();
}

/** The data of a success answer. */
function data(a: Answer): unknown {
  assert.equal(a.status, 200, a.text);
  assert.match(a.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(a.json.status, 'success');
  return a.json.data;
}

function badData(a: Answer, message: RegExp): void {
  assert.equal(a.status, 400, a.text);
  assert.equal(a.json.status, 'error');
  assert.equal(a.json.errorType, 'bad_data');
  assert.match(a.json.error, message);
}

const secs = (ms: number) => String(ms / 1000);

describe('GET /api/v1/labels', () => {
  test('every label name of the tenant\'s series, sorted, without the tenant label', async () => {
    assert.deepEqual(data(await get('/api/v1/labels')), ['__name__', 'code', 'http.status', 'instance', 'job', 'path']);
  });

  test('match[] selects the series whose names count; several are a union', async () => {
    assert.deepEqual(data(await get('/api/v1/labels', { 'match[]': 'api_up' })), ['__name__', 'instance', 'job']);
    assert.deepEqual(data(await get('/api/v1/labels', { 'match[]': ['api_dotted', '{code="200"}'] })), ['__name__', 'code', 'http.status', 'job', 'path']);
    assert.deepEqual(data(await get('/api/v1/labels', { 'match[]': 'nothing_here' })), []);
  });

  test('start and end keep the series with data in the range', async () => {
    assert.deepEqual(data(await get('/api/v1/labels', { start: secs(T0 + HOUR), end: secs(T0 + 2 * HOUR) })), ['__name__', 'instance', 'job']);
    assert.deepEqual(data(await get('/api/v1/labels', { start: secs(T0 + 3 * HOUR) })), []);
  });

  test('POST with a form body answers as GET does', async () => {
    const a = await call(strata.base, 'POST', '/api/v1/labels', {
      body: form({ 'match[]': 'api_up', end: new Date(T0 + HOUR / 2).toISOString() }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.deepEqual(data(a), ['__name__', 'instance', 'job']);
  });

  test('limit truncates and says so', async () => {
    const a = await get('/api/v1/labels', { limit: '2' });
    assert.deepEqual(data(a), ['__name__', 'code']);
    assert.deepEqual(a.json.warnings, ['results truncated due to limit']);
  });
});

describe('GET /api/v1/label/:name/values', () => {
  test('the values of a label, sorted; match[] and a time range narrow them', async () => {
    assert.deepEqual(data(await get('/api/v1/label/job/values')), ['api', 'db']);
    assert.deepEqual(data(await get('/api/v1/label/job/values', { 'match[]': '{__name__="api_up"}', end: secs(T0 + HOUR / 2) })), ['api']);
    assert.deepEqual(data(await get('/api/v1/label/__name__/values')), ['api_dotted', 'api_requests', 'api_up']);
    assert.deepEqual(data(await get('/api/v1/label/nope/values')), []);
  });

  test('the tenant label has no values (series answer as written); names Prometheus escapes are unescaped', async () => {
    assert.deepEqual(data(await get('/api/v1/label/tenant_id/values')), []);
    assert.deepEqual(data(await get('/api/v1/label/U__http_2e_status/values')), ['ok']);
    assert.deepEqual(data(await get('/api/v1/label/http.status/values')), ['ok']);
  });
});

describe('GET /api/v1/series', () => {
  test('the label sets selected by any match[], sorted, as objects', async () => {
    assert.deepEqual(data(await get('/api/v1/series', { 'match[]': 'api_up' })), [
      { __name__: 'api_up', instance: 'i1', job: 'api' },
      { __name__: 'api_up', instance: 'i2', job: 'db' },
    ]);
    assert.deepEqual(data(await get('/api/v1/series', { 'match[]': ['{job=~"a.*"}', 'api_up{instance="i1"}'] })), [
      { __name__: 'api_requests', code: '200', job: 'api', path: '/x' },
      { __name__: 'api_up', instance: 'i1', job: 'api' },
    ]);
  });

  test('start and end, as RFC 3339 or Unix seconds', async () => {
    const late = { 'match[]': 'api_up', start: new Date(T0 + HOUR).toISOString(), end: '2030-01-01T00:00:00+01:00' };
    assert.deepEqual(data(await get('/api/v1/series', late)), [{ __name__: 'api_up', instance: 'i2', job: 'db' }]);
    assert.deepEqual(data(await get('/api/v1/series', { 'match[]': 'api_up', start: '1', end: secs(T0 + 9 * STEP) + '.0' })), [
      { __name__: 'api_up', instance: 'i1', job: 'api' },
    ]);
  });

  test('POST with a form body; limit', async () => {
    const a = await call(strata.base, 'POST', '/api/v1/series', {
      body: form({ 'match[]': ['api_up', 'api_requests'], limit: '1' }),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.deepEqual(data(a), [{ __name__: 'api_requests', code: '200', job: 'api', path: '/x' }]);
    assert.deepEqual(a.json.warnings, ['results truncated due to limit']);
  });

  test('mistakes are 400 bad_data in Prometheus\' shape', async () => {
    badData(await get('/api/v1/series'), /no match\[\] parameter provided/);
    badData(await get('/api/v1/series', { 'match[]': 'api_up{' }), /invalid parameter "match\[\]"/);
    badData(await get('/api/v1/series', { 'match[]': '{job=~"("}' }), /invalid parameter "match\[\]".*RE2/);
    badData(await get('/api/v1/series', { 'match[]': '{job=""}' }), /at least one matcher/);
    badData(await get('/api/v1/series', { 'match[]': 'api_up', start: 'yesterday' }), /invalid parameter "start"/);
    badData(await get('/api/v1/labels', { limit: '-1' }), /invalid parameter "limit"/);
    badData(await get('/api/v1/label/job/values', { end: 'x' }), /invalid parameter "end"/);
  });
});

describe('tenants', () => {
  const x = { 'thanos-tenant': 'team-x' };

  test('each tenant sees only its own series and names', async () => {
    assert.deepEqual(data(await get('/api/v1/labels', {}, x)), ['__name__', 'job', 'team']);
    assert.deepEqual(data(await get('/api/v1/label/job/values', {}, x)), ['x']);
    assert.deepEqual(data(await get('/api/v1/series', { 'match[]': 'api_up' }, x)), [{ __name__: 'api_up', job: 'x', team: 'x' }]);
    assert.deepEqual(data(await get('/api/v1/series', { 'match[]': 'api_up' }, { 'thanos-tenant': 'nobody' })), []);
  });

  test('a matcher on the tenant label sees the series as written: without it', async () => {
    assert.deepEqual(data(await get('/api/v1/series', { 'match[]': 'api_up{tenant_id="team-x"}' }, x)), []);
    assert.deepEqual(data(await get('/api/v1/series', { 'match[]': 'api_up{tenant_id=""}' }, x)), [{ __name__: 'api_up', job: 'x', team: 'x' }]);
  });
});
