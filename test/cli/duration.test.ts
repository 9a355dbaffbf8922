import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from '../../src/config/duration-flag.js';
import { UsageError } from '../../src/config/usage-error.js';

test('durations are read as Prometheus writes them', () => {
  assert.equal(parseDuration('x', '15d'), 15 * 86_400_000);
  assert.equal(parseDuration('x', '1h30m'), 5_400_000);
  assert.equal(parseDuration('x', '500ms'), 500);
  assert.equal(parseDuration('x', '2w1d'), 15 * 86_400_000);
  assert.equal(parseDuration('x', '1y'), 365 * 86_400_000);
  assert.equal(parseDuration('x', '0s'), 0);
});

test('a malformed duration is a usage error naming the flag', () => {
  for (const bad of ['', '15', '1.5h', '30m1h', 'd', '-1s', '1 h']) {
    assert.throws(() => parseDuration('retention', bad), (e: Error) => e instanceof UsageError && /--retention/.test(e.message));
  }
});
