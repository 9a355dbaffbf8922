/**
 * Thanos Receive's limits configuration as Strata reads it: the examples
 * of Thanos' documentation and tests (pkg/receive/testdata/limits_config),
 * field-by-field inheritance from the default, strictness, environment
 * substitution.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandEnv, LimitsConfigError, loadLimitsText, parseLimitsConfig } from '../../../src/ingest/limits/index.js';

/** Thanos' good_limits.yaml, as docs/components/receive.md shows it. */
const THANOS_EXAMPLE = `write:
  global:
    max_concurrency: 30
    meta_monitoring_url: "http://localhost:9090"
    meta_monitoring_limit_query: "sum(prometheus_tsdb_head_series) by (tenant)"
  default:
    request:
      size_bytes_limit: 1024
      series_limit: 1000
      samples_limit: 10
    head_series_limit: 1000
  tenants:
    acme:
      request:
        size_bytes_limit: 0
        series_limit: 0
        samples_limit: 0
      head_series_limit: 2000
    ajax:
      request:
        series_limit: 50000
        samples_limit: 500
`;

function refusal(text: string): string {
  try {
    parseLimitsConfig(text);
  } catch (err) {
    assert.ok(err instanceof LimitsConfigError, `not a LimitsConfigError: ${String(err)}`);
    return err.message;
  }
  assert.fail(`accepted:\n${text}`);
}

describe('limits configuration', () => {
  it("resolves Thanos' documented example as Thanos explains it", () => {
    const c = parseLimitsConfig(THANOS_EXAMPLE);
    assert.equal(c.maxConcurrency, 30);
    assert.deepEqual(c.defaults, { sizeBytes: 1024, series: 1000, samples: 10, headSeries: 1000 });
    // acme: no request limits, a higher head series limit.
    assert.deepEqual(c.tenants.get('acme'), { sizeBytes: 0, series: 0, samples: 0, headSeries: 2000 });
    // ajax: its series and samples limits, the default's size and head series limits.
    assert.deepEqual(c.tenants.get('ajax'), { sizeBytes: 1024, series: 50000, samples: 500, headSeries: 1000 });
    assert.deepEqual(c.ignored, ['write.global.meta_monitoring_url']);
  });

  it('is no limits when empty, and a default value not written is no limit', () => {
    for (const text of ['', '\n', 'write:\n', 'write:\n  default:\n']) {
      const c = parseLimitsConfig(text);
      assert.equal(c.maxConcurrency, 0);
      assert.deepEqual(c.defaults, { sizeBytes: 0, series: 0, samples: 0, headSeries: 0 });
      assert.equal(c.tenants.size, 0);
    }
    const c = parseLimitsConfig('write:\n  default:\n    request:\n      series_limit: 5\n');
    assert.deepEqual(c.defaults, { sizeBytes: 0, series: 5, samples: 0, headSeries: 0 });
  });

  it('gives a tenant the default for every field it leaves out or sets to null', () => {
    const c = parseLimitsConfig(`write:
  default:
    request: { size_bytes_limit: 100, series_limit: 10, samples_limit: 20 }
    head_series_limit: 7
  tenants:
    nothing:
    empty: {}
    nullrequest: { request: null, head_series_limit: 0 }
    partial: { request: { samples_limit: 99, series_limit: null } }
`);
    const def = { sizeBytes: 100, series: 10, samples: 20, headSeries: 7 };
    assert.deepEqual(c.tenants.get('nothing'), def);
    assert.deepEqual(c.tenants.get('empty'), def);
    // head_series_limit: 0 is "no limit", not "the default".
    assert.deepEqual(c.tenants.get('nullrequest'), { ...def, headSeries: 0 });
    assert.deepEqual(c.tenants.get('partial'), { ...def, samples: 99 });
  });

  it('takes a negative request limit or max_concurrency as no limit, as Thanos does', () => {
    const c = parseLimitsConfig('write:\n  global: { max_concurrency: -1 }\n  default:\n    request: { size_bytes_limit: -5 }\n');
    assert.equal(c.maxConcurrency, 0);
    assert.equal(c.defaults.sizeBytes, 0);
  });

  it('refuses unknown keys, naming their path', () => {
    // Thanos' invalid_limits.yaml: `request` directly under `write`.
    assert.match(refusal('write:\n  global:\n    max_concurrency: 30\n  request:\n    size_bytes_limit: 1024\n'), /^limits config: write\.request: unknown key/);
    assert.match(refusal('writes:\n  default: {}\n'), /^limits config: writes: unknown key/);
    assert.match(refusal('write:\n  default:\n    request:\n      size_limit: 1\n'), /write\.default\.request\.size_limit: unknown key; the keys here are size_bytes_limit, series_limit, samples_limit/);
    assert.match(refusal('write:\n  tenants:\n    acme:\n      head_series: 1\n'), /write\.tenants\.acme\.head_series: unknown key/);
    assert.match(refusal('write:\n  global:\n    max_concurency: 1\n'), /write\.global\.max_concurency: unknown key/);
  });

  it('refuses values of the wrong type, repeated keys and bad YAML', () => {
    assert.match(refusal('write:\n  default:\n    head_series_limit: many\n'), /write\.default\.head_series_limit: "many" is not an integer/);
    assert.match(refusal('write:\n  default:\n    head_series_limit: -1\n'), /write\.default\.head_series_limit: "-1" is below 0/);
    assert.match(refusal('write:\n  tenants:\n    acme: 5\n'), /write\.tenants\.acme: expected a mapping/);
    assert.match(refusal('write:\n  default: {}\n  default: {}\n'), /not valid YAML/);
    assert.match(refusal('write: [1, 2'), /not valid YAML/);
  });

  it("checks meta_monitoring_url as Thanos does and ignores the meta-monitoring keys", () => {
    assert.match(refusal('write:\n  global:\n    meta_monitoring_url: "localhost:9090/x"\n'), /meta_monitoring_url: .* is not a valid meta-monitoring URL/);
    const c = parseLimitsConfig('write:\n  global:\n    meta_monitoring_limit_query: "sum(up)"\n    meta_monitoring_http_client:\n      basic_auth: { username: a }\n');
    assert.deepEqual(c.ignored, ['write.global.meta_monitoring_limit_query', 'write.global.meta_monitoring_http_client']);
  });

  it('substitutes $(NAME) from the environment and refuses an unset one', () => {
    assert.equal(expandEnv('a: $(LIMIT) $(LIMIT)', { LIMIT: '5' }), 'a: 5 5');
    assert.equal(expandEnv('a: $LIMIT ${LIMIT}', {}), 'a: $LIMIT ${LIMIT}');
    assert.throws(() => expandEnv('a: $(STRATA_NOT_SET_ANYWHERE)', {}), /found reference to unset environment variable "STRATA_NOT_SET_ANYWHERE"/);
    process.env.STRATA_TEST_HEAD_SERIES_LIMIT = '42';
    try {
      const { config } = loadLimitsText('write:\n  default:\n    head_series_limit: $(STRATA_TEST_HEAD_SERIES_LIMIT)\n');
      assert.equal(config.defaults.headSeries, 42);
    } finally {
      delete process.env.STRATA_TEST_HEAD_SERIES_LIMIT;
    }
  });
});
