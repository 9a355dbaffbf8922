// The load encoder of `strata bench remote-write`: what it encodes decodes
// back (with the generated prometheus.WriteRequest) to the series, samples,
// histograms and churn asked for, in time order, the same bytes every time.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { uncompressSync } from 'snappy';
import { WriteRequest } from '../../src/gen/prometheus/remote.js';
import { kubeCatalogue, SERIES_PER_POD } from '../../src/bench/load/kube.js';
import { nodeExporterCatalogue, SERIES_PER_HOST } from '../../src/bench/load/node-exporter.js';
import { encodePlan, LoadTooLargeError, type EncodedPlan, type PlanOptions } from '../../src/bench/load/plan.js';
import { ProfileError, profileCatalogue, readProfile } from '../../src/bench/load/profile-file.js';

const START = Date.UTC(2026, 0, 1);

function options(over: Partial<PlanOptions> = {}): PlanOptions {
  return { catalogue: nodeExporterCatalogue(1200), start: START, intervalMs: 15_000, scrapes: 4, perRequest: 500, churn: 0, histogramShare: 0, maxSamples: 0, maxBytes: 2 ** 30, ...over };
}

interface Decoded {
  /** key -> timestamps in the order sent */
  series: Map<string, number[]>;
  samples: number;
  histograms: number;
}

function decode(plan: EncodedPlan): Decoded {
  const series = new Map<string, number[]>();
  let samples = 0;
  let histograms = 0;
  for (const body of plan.requests) {
    const req = WriteRequest.decode(uncompressSync(body) as Buffer);
    for (const ts of req.timeseries) {
      const names = ts.labels.map((l) => l.name);
      assert.deepEqual(names, [...names].sort(), 'labels sorted by name');
      const key = ts.labels.map((l) => `${l.name}=${l.value}`).join(',');
      const times = series.get(key) ?? [];
      for (const s of ts.samples) times.push(Number(s.timestamp));
      for (const h of ts.histograms) times.push(Number(h.timestamp));
      samples += ts.samples.length;
      histograms += ts.histograms.length;
      assert.equal(ts.samples.length + ts.histograms.length, 1, 'one sample a series a request');
      series.set(key, times);
    }
  }
  return { series, samples, histograms };
}

describe('bench load encoder', () => {
  test('encodes every series once a scrape, in time order, as counted', async () => {
    const plan = await encodePlan(options());
    assert.equal(plan.groups, 3);
    assert.equal(plan.requests.length, 12);
    assert.equal(plan.totalSamples, 1200 * 4);
    const d = decode(plan);
    assert.equal(d.series.size, 1200);
    assert.equal(d.samples, plan.totalSamples);
    for (const [key, times] of d.series) {
      assert.equal(times.length, 4, key);
      for (let i = 1; i < times.length; i++) assert.ok(times[i]! > times[i - 1]!, `${key}: times increase`);
    }
    assert.ok(plan.minTime >= START && plan.maxTime < START + 4 * 15_000 + 100);
  });

  test('gives the same bytes for the same options', async () => {
    const a = await encodePlan(options({ churn: 0.5, histogramShare: 0.1 }));
    const b = await encodePlan(options({ churn: 0.5, histogramShare: 0.1 }));
    assert.equal(a.requests.length, b.requests.length);
    a.requests.forEach((r, i) => assert.ok(r.equals(b.requests[i]!), `request ${i}`));
  });

  test('sends native histograms for the share asked, and they decode', async () => {
    const plan = await encodePlan(options({ histogramShare: 0.1 }));
    assert.equal(plan.totalHistograms, 120 * 4);
    assert.equal(plan.totalSamples, 1080 * 4);
    const d = decode(plan);
    assert.equal(d.histograms, 480);
    const req = WriteRequest.decode(uncompressSync(plan.requests[plan.requests.length - 1]!) as Buffer);
    const h = req.timeseries.find((t) => t.histograms.length > 0)!.histograms[0]!;
    assert.equal(h.schema, 3);
    assert.equal(h.count?.$case, 'countInt');
    // Buckets are deltas; their running sum plus the zero bucket is the count.
    let running = 0n;
    let total = 0n;
    for (const delta of h.positiveDeltas) {
      running += delta;
      assert.ok(running >= 0n);
      total += running;
    }
    const zero = h.zeroCount?.$case === 'zeroCountInt' ? h.zeroCount.value : 0n;
    assert.equal(total + zero, h.count?.value);
  });

  test('churn replaces whole targets by new series', async () => {
    const hosts = Math.ceil(1200 / SERIES_PER_HOST);
    const plan = await encodePlan(options({ churn: 1 / hosts, scrapes: 3 }));
    // One host replaced at each scrape after the first: two generations more.
    assert.equal(plan.targetsReplaced, 2);
    const d = decode(plan);
    assert.equal(d.series.size, plan.seriesCreated);
    assert.equal(plan.seriesCreated, 1200 + 2 * SERIES_PER_HOST);
    assert.ok([...d.series.keys()].some((k) => k.includes('node-0000-g1.')));
  });

  test('stops at --total-samples, rounded up to a whole request', async () => {
    // Requests of 500, 500 and 200 series a scrape: 500, 1000, 1200, 1700 samples.
    const plan = await encodePlan(options({ maxSamples: 1600 }));
    assert.equal(plan.requests.length, 4);
    assert.equal(plan.totalSamples, 1700);
  });

  test('refuses a load larger than allowed', async () => {
    await assert.rejects(encodePlan(options({ maxBytes: 10_000 })), LoadTooLargeError);
  });

  test('the kube profile names pods uniquely, a new pod for each generation', () => {
    const cat = kubeCatalogue(SERIES_PER_POD * 300);
    const pods = new Set<string>();
    for (let p = 0; p < 300; p++) {
      const labels = cat.labels(p * SERIES_PER_POD);
      pods.add(labels[labels.indexOf('pod') + 1]!);
    }
    assert.equal(pods.size, 300);
    const first = cat.labels(0);
    const next = cat.labels(0, 1);
    assert.notEqual(first[first.indexOf('pod') + 1], next[next.indexOf('pod') + 1]);
    assert.equal(new Set(Array.from({ length: SERIES_PER_POD }, (_, i) => cat.labels(i).join(','))).size, SERIES_PER_POD, 'a pod\'s series differ');
  });

  test('a JSON profile gives every combination of its label values, and a bad one names the place', () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-bench-profile-'));
    try {
      const file = join(dir, 'p.json');
      writeFileSync(file, JSON.stringify({
        targetFormat: 'app-{target}:8080',
        labels: { job: 'app' },
        families: [
          { name: 'http_requests_total', type: 'counter', increment: 10, labels: { method: ['GET', 'POST'], code: ['200', '500'] } },
          { name: 'queue_depth', type: 'gauge', min: 0, max: 10 },
        ],
      }));
      const cat = profileCatalogue(readProfile(file), 10, file);
      assert.equal(cat.hosts, 2);
      assert.deepEqual(cat.labels(0), ['__name__', 'http_requests_total', 'code', '200', 'instance', 'app-0:8080', 'job', 'app', 'method', 'GET']);
      assert.deepEqual(cat.labels(5, 2), ['__name__', 'http_requests_total', 'code', '200', 'instance', 'app-1:8080-g2', 'job', 'app', 'method', 'GET']);
      writeFileSync(file, JSON.stringify({ families: [{ name: 'x', type: 'histogram' }] }));
      assert.throws(() => readProfile(file), (err: Error) => err instanceof ProfileError && err.message.includes('/families/0/type'));
      writeFileSync(file, '{');
      assert.throws(() => readProfile(file), /not JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
