/**
 * `strata bench store-api`: `concurrency` workers send the queries in turn
 * over one gRPC connection until --duration (or --requests) ends the run,
 * with a live progress line; then the summary, --json and --report.
 * Bounded: each call has a deadline; after a stop, calls in flight get a
 * short drain and are then cancelled (counted as aborted).
 */
import { performance } from 'node:perf_hooks';
import type * as grpc from '@grpc/grpc-js';
import { PartialResponseStrategy } from '../../gen/thanos/store/types.js';
import type { SeriesRequest } from '../../gen/thanos/store/rpc.js';
import { LatencyHistogram } from '../run/latency-histogram.js';
import { LiveProgress } from '../run/live.js';
import { Progress } from '../run/progress.js';
import { bucketMsFor, Recorder } from '../run/recorder.js';
import { EXIT_INTERRUPTED, RunStop } from '../run/stop.js';
import { latencyJson, reportJson, runJson, writeReports } from '../report/build.js';
import type { CallStats, RunReport } from '../report/schema.js';
import { reportSummary } from '../report/summary.js';
import { connect, labelNamesCall, labelValuesCall, seriesCall, type CallResult } from './client.js';
import type { StoreApiConfig, StoreQuery } from './options.js';

/** After a stop, calls in flight get this long before they are cancelled. */
const DRAIN_MS = 5000;
/** A hard bound on calls in one run, whatever the flags. */
const MAX_CALLS = 1e9;

function seriesRequest(q: StoreQuery, shard: number): SeriesRequest {
  return {
    minTime: BigInt(q.start),
    maxTime: BigInt(q.end),
    matchers: q.matchers,
    maxResolutionWindow: 0n,
    aggregates: [],
    partialResponseDisabled: false,
    partialResponseStrategy: PartialResponseStrategy.ABORT,
    skipChunks: q.call === 'series-skip-chunks',
    step: 0n,
    range: 0n,
    ...(q.shards > 1 ? { shardInfo: { shardIndex: BigInt(shard), totalShards: BigInt(q.shards), by: false, labels: [] } } : {}),
    withoutReplicaLabels: [],
    limit: BigInt(q.limit),
  };
}

interface CallTally {
  stats: CallStats;
  latency: LatencyHistogram;
}

export async function benchStoreApi(c: StoreApiConfig, argv: string[]): Promise<number> {
  const stop = new RunStop();
  stop.catchInterrupt();
  const startedAt = new Date();
  const client = connect(c.addr, c.tls);
  const recorder = new Recorder(bucketMsFor(c.durationMs));
  const tallies = new Map<string, CallTally>();
  const tally = (name: string): CallTally => {
    let t = tallies.get(name);
    if (t === undefined) {
      t = { stats: { requests: 0, errors: 0, series: 0, frames: 0, bytes: 0, chunks: 0, values: 0, latencyMs: latencyJson(new LatencyHistogram()) }, latency: new LatencyHistogram() };
      tallies.set(name, t);
    }
    return t;
  };
  type Call = grpc.ClientReadableStream<Buffer> | grpc.ClientUnaryCall;
  const inFlight = new Set<Call>();
  const limit = c.requests > 0 ? Math.min(c.requests, MAX_CALLS) : MAX_CALLS;
  let issued = 0;
  let answered = 0;
  const shardTurn = new Uint32Array(c.queries.length);
  const live = new LiveProgress({ phase: 'store-api', recorder, unit: 'series', ...(c.requests > 0 ? { total: c.requests } : {}), durationMs: c.durationMs, plainEveryMs: c.progressIntervalMs });
  try {
    recorder.start();
    stop.deadline(c.durationMs);
    live.start();
    const worker = async (): Promise<void> => {
      // Bounded by `limit` calls and by the stop (duration, Ctrl-C).
      while (!stop.stopped && issued < limit) {
        const k = issued % c.queries.length;
        issued++;
        const q = c.queries[k]!;
        let current: Call | undefined;
        const track = (call: Call): void => {
          current = call;
          inFlight.add(call);
        };
        const r0 = performance.now();
        let result: CallResult;
        let name: string = q.call;
        if (q.call === 'series' || q.call === 'series-skip-chunks') {
          const shard = q.shards > 1 ? shardTurn[k]!++ % q.shards : 0;
          result = await seriesCall(client, seriesRequest(q, shard), c.timeoutMs, track);
        } else if (q.call === 'label-names') {
          result = await labelNamesCall(client, { partialResponseDisabled: false, partialResponseStrategy: PartialResponseStrategy.ABORT, start: BigInt(q.start), end: BigInt(q.end), matchers: q.matchers, withoutReplicaLabels: [], limit: BigInt(q.limit) }, c.timeoutMs, track);
        } else {
          name = `label-values ${q.label}`;
          result = await labelValuesCall(client, { label: q.label, partialResponseDisabled: false, partialResponseStrategy: PartialResponseStrategy.ABORT, start: BigInt(q.start), end: BigInt(q.end), matchers: q.matchers, withoutReplicaLabels: [], limit: BigInt(q.limit) }, c.timeoutMs, track);
        }
        if (current !== undefined) inFlight.delete(current);
        const now = performance.now();
        const ms = now - r0;
        recorder.record(ms, result.outcome, { items: result.series, frames: result.frames, bytes: result.bytes }, now);
        if (result.outcome.kind === 'aborted') continue;
        answered++;
        const t = tally(name);
        t.stats.requests++;
        if (result.outcome.kind !== 'ok') t.stats.errors++;
        t.stats.series += result.series;
        t.stats.frames += result.frames;
        t.stats.chunks += result.chunks;
        t.stats.values += result.values;
        t.stats.bytes += result.bytes;
        t.latency.record(ms);
        if (c.requests > 0 && answered >= c.requests) stop.stop('requests');
      }
    };
    const all = Promise.all(Array.from({ length: c.concurrency }, worker));
    // Calls leave the in-flight set when they finish; after a stop, the rest get DRAIN_MS.
    const settled = all.then(() => undefined);
    await Promise.race([settled, new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }))]);
    if (stop.stopped) {
      const timer = setTimeout(() => { for (const call of inFlight) call.cancel(); }, DRAIN_MS);
      await settled;
      clearTimeout(timer);
    }
    if (!stop.stopped) stop.stop('requests');
    recorder.finish();
    live.stop();
  } finally {
    client.close();
    stop.dispose();
  }
  const calls: Record<string, CallStats> = {};
  for (const [name, t] of [...tallies.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) calls[name] = { ...t.stats, latencyMs: latencyJson(t.latency) };
  const run: RunReport = { ...runJson(c.addr, `grpc://${c.addr}`, 'series', recorder, stop.reason ?? 'requests'), calls };
  const report = reportJson('store-api', argv, startedAt, [run]);
  (c.json === '-' ? process.stderr : process.stdout).write(`\n${reportSummary(report)}\n`);
  const written = writeReports(report, c);
  if (written.length > 0) new Progress().log(`written: ${written.join(', ')}`);
  if (run.interrupted) return EXIT_INTERRUPTED;
  return run.answers.ok > 0 ? 0 : 1;
}
