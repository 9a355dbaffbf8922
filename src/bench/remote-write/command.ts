/**
 * `strata bench remote-write`: encode the load, send it with a live
 * progress line while watching the target's readiness and event-loop
 * delay (run/responsiveness.ts), then print the summary and write --json
 * and --report.
 * Ctrl-C stops the sending; what was measured until then is printed and
 * written, marked as interrupted.
 */
import { EncodingStoppedError, LoadTooLargeError } from '../load/plan.js';
import { reportJson, runJson, writeReports } from '../report/build.js';
import { reportSummary } from '../report/summary.js';
import type { RunReport } from '../report/schema.js';
import { LiveProgress } from '../run/live.js';
import { Progress } from '../run/progress.js';
import { bucketMsFor, Recorder } from '../run/recorder.js';
import { ResponsivenessWatch } from '../run/responsiveness.js';
import { EXIT_INTERRUPTED, RunStop } from '../run/stop.js';
import { UsageError } from '../../config/usage-error.js';
import { fmt, mib } from '../run/format.js';
import { grpcWriteBodies } from './grpc-frames.js';
import { otlpWriteBodies } from './otlp-bodies.js';
import { rememberLastSampleTime, startFor } from './last-sample.js';
import { prepareLoad, type PreparedLoad } from './load.js';
import { scrapesFor, type RemoteWriteConfig } from './options.js';
import { isGrpcUrl, sendPlan, type SendResult } from './sender.js';

/** The load part of the run's JSON. */
export function loadJson(c: RemoteWriteConfig | { perRequest: number; intervalMs: number; churn: number; histogramShare: number; rate: number }, prepared: PreparedLoad, sent: SendResult): NonNullable<RunReport['load']> {
  const p = prepared.plan;
  return {
    profile: prepared.profileName,
    series: p.series,
    seriesCreated: p.seriesCreated,
    samplesPerSeries: p.scrapes,
    intervalSeconds: c.intervalMs / 1000,
    churn: c.churn,
    histogramShare: c.histogramShare,
    seriesPerRequest: c.perRequest,
    requestsPlanned: p.requests.length,
    requestsSent: sent.sent,
    samplesPlanned: p.totalSamples,
    histogramsPlanned: p.totalHistograms,
    samplesWritten: sent.samplesWritten - sent.histogramsWritten,
    histogramsWritten: sent.histogramsWritten,
    encodedBytes: p.compressedBytes,
    rawBytes: p.rawBytes,
    encodeSeconds: Math.round(prepared.encodeSeconds * 1000) / 1000,
    minTime: p.minTime,
    maxTime: p.maxTime,
    targetRate: c.rate,
  };
}

/** Runs the mode; `argv` (the words after `strata bench`) goes into the report. Returns the exit status. */
export async function benchRemoteWrite(c: RemoteWriteConfig, argv: string[]): Promise<number> {
  const stop = new RunStop();
  stop.catchInterrupt();
  const progress = new Progress(process.stderr, c.progressIntervalMs);
  const startedAt = new Date();
  try {
    let prepared: PreparedLoad;
    let grpcBodies: Buffer[] | undefined;
    let otlpBodies: Buffer[] | undefined;
    try {
      const scrapes = scrapesFor(c);
      let start = c.start;
      if (start === undefined) {
        const chosen = startFor(c.url, scrapes, c.intervalMs);
        start = chosen.start;
        if (chosen.after !== undefined) progress.log(`start: ${new Date(start).toISOString()}, just after the last sample an earlier run sent to ${c.url.href} (${new Date(chosen.after).toISOString()}); --start chooses another`);
      }
      prepared = await prepareLoad({ ...c, scrapes, start }, progress, stop.signal);
      if (isGrpcUrl(c.url)) {
        grpcBodies = grpcWriteBodies(prepared.plan.requests, c.tenant, c.maxEncodedBytes, c.grpcCompression);
        progress.log(`gRPC: ${fmt(grpcBodies.length)} thanos.WriteableStore/RemoteWrite calls, ${mib(grpcBodies.reduce((n, b) => n + b.length, 0))} ${c.grpcCompression === 'snappy' ? 'snappy-framed (grpc-encoding: snappy)' : 'uncompressed'}${c.tenant === undefined ? '' : `, tenant ${JSON.stringify(c.tenant)} in each`}`);
      }
      if (c.format === 'otlp') {
        otlpBodies = otlpWriteBodies(prepared.plan.requests, c.maxEncodedBytes, c.otlpCompression);
        progress.log(`OTLP: ${fmt(otlpBodies.length)} ExportMetricsServiceRequests, ${mib(otlpBodies.reduce((n, b) => n + b.length, 0))} ${c.otlpCompression === 'gzip' ? 'gzip' : 'uncompressed'} protobuf`);
      }
    } catch (err) {
      if (err instanceof LoadTooLargeError) throw new UsageError(err.message);
      if (err instanceof EncodingStoppedError) {
        progress.log(`strata bench: interrupted while encoding the load (${err.message}); nothing was sent`);
        return EXIT_INTERRUPTED;
      }
      throw err;
    }
    const recorder = new Recorder(bucketMsFor(c.durationMs));
    const live = new LiveProgress({ phase: 'remote-write', recorder, unit: 'samples', total: prepared.plan.requests.length, durationMs: c.durationMs, plainEveryMs: c.progressIntervalMs });
    const watch = await ResponsivenessWatch.begin({ durationMs: c.durationMs, headers: c.headers,
      ...(c.readyUrl ? { readyUrl: c.readyUrl } : {}), ...(c.metricsUrl ? { metricsUrl: c.metricsUrl } : {}), ...(c.tls ? { tls: c.tls } : {}) });
    stop.deadline(c.durationMs);
    const sending = sendPlan(prepared.plan, { url: c.url, headers: c.headers, concurrency: c.concurrency, rate: c.rate, timeoutMs: c.timeoutMs, retries: c.retries, recorder, stop, ...(c.tls === undefined ? {} : { tls: c.tls }), ...(grpcBodies === undefined ? {} : { grpcBodies }), ...(otlpBodies === undefined ? {} : { otlp: { bodies: otlpBodies, compression: c.otlpCompression } }) });
    live.start();
    const sent = await sending;
    live.stop();
    if (sent.sent > 0) rememberLastSampleTime(c.url, prepared.plan.maxTime);
    const run: RunReport = {
      ...runJson(c.url.host, c.url.href, 'samples', recorder, stop.reason ?? 'load-sent'),
      load: loadJson(c, prepared, sent),
      responsiveness: await watch.end(),
    };
    const notes: string[] = [];
    if (run.answers.ok === 0) {
      notes.push(`nothing was written: none of the ${fmt(run.totals.requests)} requests sent succeeded (see the answers above)`);
    } else if (run.stoppedBy === 'load-sent' && run.seconds < (c.durationMs / 1000) * 0.9) {
      notes.push(`the whole load was sent ${c.durationGiven ? 'before --duration ran out' : `in ${fmt(run.seconds, 3)} s`}; for a longer run give --duration, more --samples-per-series or --rate`);
    }
    const report = reportJson('remote-write', argv, startedAt, [run], notes);
    const summary = reportSummary(report);
    // With --json - the JSON goes to stdout alone; the summary then goes to stderr.
    (c.json === '-' ? process.stderr : process.stdout).write(`\n${summary}\n`);
    const written = writeReports(report, c);
    if (written.length > 0) progress.log(`written: ${written.join(', ')}`);
    if (run.interrupted) return EXIT_INTERRUPTED;
    return run.answers.ok > 0 ? 0 : 1;
  } finally {
    stop.dispose();
  }
}
