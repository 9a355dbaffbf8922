/**
 * httpGracePeriod and grpcGracePeriod (--http-grace-period,
 * --grpc-grace-period, Thanos' "time to wait after an interrupt received"):
 * the values close() gives each listener to let requests in flight finish.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidArgumentError } from '../../src/index.js';
import { resolveOptions } from '../../src/lib/resolve-options.js';

test('the grace periods take durations; the default is 10s, 0 allowed, negative or bad refused', () => {
  const r = resolveOptions({ dataDir: 'x', httpGracePeriod: '2m', grpcGracePeriod: '1m30s' });
  assert.deepEqual([r.httpGraceMs, r.grpcGraceMs], [120_000, 90_000]);
  const d = resolveOptions({ dataDir: 'x' });
  assert.deepEqual([d.httpGraceMs, d.grpcGraceMs], [10_000, 10_000]);
  assert.equal(resolveOptions({ dataDir: 'x', grpcGracePeriod: 0 }).grpcGraceMs, 0);
  for (const bad of [-1, 'soon']) {
    assert.throws(() => resolveOptions({ dataDir: 'x', grpcGracePeriod: bad as never }), (err: unknown) =>
      err instanceof InvalidArgumentError && /^grpcGracePeriod:/.test(err.message));
  }
});
