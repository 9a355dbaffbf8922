// Issue 14's and 29's targets as `strata bench compare` prints them: ratios of Strata
// to VictoriaMetrics and Prometheus, each target met or not met, and "not
// measured" where a run lacks the figure.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { targetsTable, type PeerFigures } from '../../src/bench/compare/targets.js';
import type { Responsiveness } from '../../src/bench/report/schema.js';

const MiB = 2 ** 20;

function responsiveness(readyP99: number, readyMax: number, failures: number, loopP99: number | null): Responsiveness {
  const lat = { count: 100, mean: readyP99 / 2, p50: readyP99 / 3, p90: readyP99 / 2, p99: readyP99, p999: readyMax, max: readyMax };
  return {
    readiness: { url: 'http://127.0.0.1:1/-/ready', intervalMs: 100, probes: 100, ok: 100 - failures, failures, byCode: failures > 0 ? { '503': failures } : {}, latencyMs: lat, slowMs: 50, slow: 0 },
    serverEventLoop: loopP99 === null ? null : { minMs: 9.8, meanMs: 10.4, p50Ms: 10.1, p90Ms: 11, p99Ms: loopP99, maxMs: loopP99 + 5, url: 'http://127.0.0.1:1/metrics', family: 'strata_nodejs_eventloop_lag', windowSeconds: 10 },
    probeEventLoop: { minMs: 10, meanMs: 10.2, p50Ms: 10.1, p90Ms: 10.5, p99Ms: 12, maxMs: 15 },
    notes: [],
  };
}

const strata: PeerFigures = { name: 'strata', samplesPerSecond: 1_200_000, cpuMicrosecondsPerSample: 1.5, peakRssBytes: 480 * MiB, idleRssBytes: 78 * MiB, settledRssBytes: 390 * MiB, responsiveness: responsiveness(12, 31, 0, 18.5) };
const vm: PeerFigures = { name: 'victoriametrics', samplesPerSecond: 1_000_000, cpuMicrosecondsPerSample: 1.2, peakRssBytes: 400 * MiB, idleRssBytes: 21 * MiB, settledRssBytes: 300 * MiB, responsiveness: { ...responsiveness(3, 8, 0, null) } };
const prom: PeerFigures = { name: 'prometheus', samplesPerSecond: 400_000, cpuMicrosecondsPerSample: 3, peakRssBytes: 960 * MiB, idleRssBytes: 60 * MiB, settledRssBytes: undefined, responsiveness: responsiveness(4, 60, 0, null) };

/** The table's row for `figure`, as cells. */
function row(table: string, figure: string): string[] {
  const line = table.split('\n').find((l) => l.startsWith(`| ${figure} |`));
  assert.ok(line !== undefined, `a row for ${figure} in:\n${table}`);
  return line.slice(2, -2).split(' | ');
}

describe('issue 14 targets table', () => {
  test('ratios Strata/VictoriaMetrics and Strata/Prometheus side by side, each target met or not met', () => {
    const t = targetsTable([strata, vm, prom]);
    assert.match(t.split('\n')[0]!, /^\| figure \| Strata \| VictoriaMetrics \| Prometheus \| Strata\/VictoriaMetrics \| Strata\/Prometheus \| target \(issues 14, 29\) \| result \|$/);
    assert.deepEqual(row(t, 'samples/s'), ['samples/s', '1,200,000', '1,000,000', '400,000', '1.20x', '3.00x', 'Strata >= 1.2x VictoriaMetrics', '**met**']);
    assert.deepEqual(row(t, 'server CPU µs/sample'), ['server CPU µs/sample', '1.50', '1.20', '3.00', '1.25x', '0.50x', 'Strata <= VictoriaMetrics', '**not met**']);
    assert.deepEqual(row(t, 'idle RSS'), ['idle RSS', '78.0 MiB', '21.0 MiB', '60.0 MiB', '3.71x', '1.30x', 'Strata <= 80.0 MiB', '**met**']);
    assert.deepEqual(row(t, 'peak RSS'), ['peak RSS', '480.0 MiB', '400.0 MiB', '960.0 MiB', '1.20x', '0.50x', 'Strata <= VictoriaMetrics', '**not met**']);
    assert.deepEqual(row(t, 'RSS settled after the load'), ['RSS settled after the load', '390.0 MiB', '300.0 MiB', 'n/a', '1.30x', 'n/a', 'Strata <= VictoriaMetrics', '**not met**']);
    assert.deepEqual(row(t, 'readiness p99 / max ms'), ['readiness p99 / max ms', '12.0 / 31.0', '3.0 / 8.0', '4.0 / 60.0', '4.00x', '3.00x', 'Strata: every answer within 50 ms', '**met**']);
    assert.deepEqual(row(t, 'event-loop delay p99 / max ms'), ['event-loop delay p99 / max ms', '18.5 / 23.5', 'n/a', 'n/a', 'n/a', 'n/a', 'Strata: p99 under 20 ms', '**met**']);
  });

  test('RSS at most VictoriaMetrics\' is met; failed or slow readiness and a slow loop are not met', () => {
    const slow: PeerFigures = { ...strata, samplesPerSecond: 1_100_000, peakRssBytes: 400 * MiB, settledRssBytes: 250 * MiB, idleRssBytes: 81 * MiB, responsiveness: responsiveness(20, 51, 0, 20) };
    const t = targetsTable([slow, vm]);
    assert.equal(row(t, 'samples/s').at(-1), '**not met**', '1.10x is under 1.2x');
    assert.equal(row(t, 'peak RSS').at(-1), '**met**', 'equal to VictoriaMetrics\'');
    assert.equal(row(t, 'RSS settled after the load').at(-1), '**met**', 'below VictoriaMetrics\'');
    assert.equal(row(t, 'idle RSS').at(-1), '**not met**', '81 MiB is over 80 MiB');
    assert.equal(row(t, 'readiness p99 / max ms').at(-1), '**not met**', 'one answer took 51 ms');
    assert.equal(row(t, 'event-loop delay p99 / max ms').at(-1), '**not met**', 'p99 must be under 20 ms');
    assert.equal(row(t, 'samples/s')[3], 'not run');
    assert.equal(row(t, 'samples/s')[5], 'n/a');
    const failed = targetsTable([{ ...strata, responsiveness: responsiveness(5, 9, 2, 12) }, vm]);
    assert.deepEqual(row(failed, 'readiness p99 / max ms').slice(1, 2), ['5.0 / 9.0, 2 of 100 failed']);
    assert.equal(row(failed, 'readiness p99 / max ms').at(-1), '**not met**', 'a failed probe is not an answer within 50 ms');
  });

  test('without VictoriaMetrics or the figures, targets are not measured rather than met', () => {
    const t = targetsTable([{ ...strata, responsiveness: { ...responsiveness(1, 2, 0, null), readiness: null } }, prom]);
    for (const figure of ['samples/s', 'server CPU µs/sample', 'peak RSS', 'RSS settled after the load', 'readiness p99 / max ms', 'event-loop delay p99 / max ms']) {
      assert.equal(row(t, figure).at(-1), 'not measured', figure);
    }
    assert.equal(row(t, 'samples/s')[5], '3.00x', 'the Prometheus ratio is still given');
  });
});
