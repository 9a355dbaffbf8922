/**
 * `strata bench compare`: encode one load, then for each server in turn
 * (run-peer.ts) send it, count what it holds, time the reads, stop it and
 * measure its disk; repeat a server whose load other work disturbed. At
 * the end: a summary per server, the markdown section (--markdown), and
 * the JSON and HTML reports with one run per server.
 *
 * Ctrl-C stops the current server's load; what was measured is printed
 * and written, every child is stopped, the temporary directory removed.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EncodingStoppedError, LoadTooLargeError } from '../load/plan.js';
import { catalogueOf, prepareLoad, type PreparedLoad } from '../remote-write/load.js';
import { loadJson } from '../remote-write/command.js';
import { reportJson, runJson, writeReports } from '../report/build.js';
import type { RunReport } from '../report/schema.js';
import { reportSummary } from '../report/summary.js';
import { Progress } from '../run/progress.js';
import { EXIT_INTERRUPTED, RunStop } from '../run/stop.js';
import { fmt, mib } from '../run/format.js';
import { UsageError } from '../../config/usage-error.js';
import { CLEAN_SHARE, grpcRatio, markdownSection } from './markdown.js';
import type { CompareConfig } from './options.js';
import { peerTitle, type PeerName } from './peers.js';
import { stopAll, which } from './processes.js';
import { otherShare, readCases, runPeer, type Ingest, type PeerContext, type Read } from './run-peer.js';

const TWO_HOURS = 7_200_000;
const root = new URL('../../..', import.meta.url).pathname;

type Installed = Exclude<PeerName, 'strata' | 'strata-grpc'>;
const BINARY: Record<Installed, string> = { victoriametrics: 'victoria-metrics', prometheus: 'prometheus' };

/** A chunk-range (2 h) boundary at least two hours back, so the load sits in one block range, in the past. */
function loadStart(samplesPerSeries: number, intervalMs: number): number {
  const span = (samplesPerSeries + 1) * intervalMs;
  return Math.floor((Date.now() - span) / TWO_HOURS) * TWO_HOURS - TWO_HOURS;
}

function checkSetup(peers: PeerName[]): void {
  if ((peers.includes('strata') || peers.includes('strata-grpc')) && !existsSync(join(root, 'dist/cli/main.js'))) throw new UsageError('bench compare: Strata is not built: run `npm run build` first');
  const missing = peers.filter((p): p is Installed => p !== 'strata' && p !== 'strata-grpc' && which(BINARY[p as Installed]) === undefined).map((p) => BINARY[p]);
  if (missing.length > 0) throw new UsageError(`bench compare: not on PATH: ${missing.join(', ')}; install the Debian packages (apt-get install -y ${missing.join(' ')}) or leave them out with --peers`);
}

function serverJson(i: Ingest): NonNullable<RunReport['server']> {
  const d = i.disk;
  const written = Math.max(1, i.sent.samplesWritten);
  return {
    version: i.peer.version,
    serverCpuSeconds: i.serverCpuSeconds,
    serverCpuMicrosecondsPerSample: (i.serverCpuSeconds / written) * 1e6,
    generatorCpuSeconds: i.clientCpuSeconds,
    otherCpuSeconds: i.otherCpuSeconds,
    peakRssBytes: i.peakRss,
    idleRssBytes: i.idleRss,
    settledRssBytes: i.settledRss ?? null,
    rssAfterAnonBytes: i.rssAfter.anon,
    rssAfterFileBytes: i.rssAfter.file,
    storedSeries: i.stored?.series ?? null,
    storedSamples: i.stored?.samples ?? null,
    storedHow: i.stored?.how ?? null,
    diskPersistedBytes: d?.persisted.allocated ?? null,
    diskPersistedWhat: d?.persistedWhat ?? null,
    diskBytesPerSample: d === undefined ? null : d.persisted.allocated / written,
  };
}

export async function benchCompare(c: CompareConfig, argv: string[], via?: string): Promise<number> {
  checkSetup(c.peers);
  const progress = new Progress(process.stderr, c.progressIntervalMs);
  const startedAt = new Date();
  const load0 = loadavg()[0]!;
  let interrupted = false;
  let current: RunStop | undefined;
  const onInterrupt = (): void => {
    if (interrupted) {
      void stopAll().finally(() => process.exit(EXIT_INTERRUPTED));
      return;
    }
    interrupted = true;
    current?.stop('interrupt');
  };
  process.on('SIGINT', onInterrupt);
  const encodeStop = new AbortController();
  const parent = mkdtempSync(join(tmpdir(), 'strata-bench-compare-'));
  const ingests: Ingest[] = [];
  const allReads: Read[] = [];
  const failed: PeerName[] = [];
  try {
    let prepared: PreparedLoad;
    const onEncodeInterrupt = (): void => encodeStop.abort();
    process.on('SIGINT', onEncodeInterrupt);
    try {
      prepared = await prepareLoad({
        profile: c.profile,
        series: c.series,
        scrapes: c.samplesPerSeries,
        intervalMs: c.intervalMs,
        perRequest: c.perRequest,
        churn: c.churn,
        histogramShare: c.histogramShare,
        totalSamples: 0,
        maxEncodedBytes: c.maxEncodedBytes,
        start: c.start ?? loadStart(c.samplesPerSeries, c.intervalMs),
      }, progress, encodeStop.signal);
    } catch (err) {
      if (err instanceof LoadTooLargeError) throw new UsageError(err.message);
      if (err instanceof EncodingStoppedError) {
        progress.log('strata bench compare: interrupted while encoding the load; no server was started');
        return EXIT_INTERRUPTED;
      }
      throw err;
    } finally {
      process.off('SIGINT', onEncodeInterrupt);
    }
    if (c.peers.includes('strata-grpc') && c.grpcCompression === 'none' && prepared.plan.rawBytes > c.maxEncodedBytes) {
      throw new UsageError(`bench compare: strata-grpc sends the load uncompressed, ${mib(prepared.plan.rawBytes)}, more than --max-encoded ${mib(c.maxEncodedBytes)}; raise --max-encoded or lower --series or --samples-per-series`);
    }
    const catalogue = catalogueOf(c.profile, c.series);
    const context: PeerContext = {
      parent,
      maxEncodedBytes: c.maxEncodedBytes,
      grpcCompression: c.grpcCompression,
      plan: prepared.plan,
      cases: readCases(catalogue, prepared.profileName),
      concurrency: c.concurrency,
      rate: c.rate,
      durationMs: c.durationMs,
      readMs: c.readMs,
      quietWaitMs: c.quietWaitMs,
      progressIntervalMs: c.progressIntervalMs,
      progress,
      newStop: () => {
        current = new RunStop();
        if (interrupted) current.stop('interrupt');
        return current;
      },
      interrupted: () => interrupted,
    };
    for (const name of c.peers) {
      if (interrupted) break;
      let best: Awaited<ReturnType<typeof runPeer>> | undefined;
      // Bounded by --attempts.
      for (let attempt = 1; attempt <= c.attempts && !interrupted; attempt++) {
        let r: Awaited<ReturnType<typeof runPeer>>;
        try {
          r = await runPeer(name, context);
        } catch (err) {
          // One server failing (did not start, answered a read wrongly) does not lose the others' figures.
          progress.log(`${peerTitle(name)}: failed: ${(err as Error).message}`);
          failed.push(name);
          break;
        }
        if (best === undefined || r.ingest.otherCpuSeconds < best.ingest.otherCpuSeconds) best = r;
        const share = otherShare(r.ingest);
        if (share < CLEAN_SHARE || r.ingest.stoppedBy === 'interrupt') break;
        progress.log(`${peerTitle(name)}: other work took ${fmt(share * 100)}% of the machine during the load${attempt < c.attempts ? '; running it again' : '; keeping the cleanest run'}`);
      }
      if (best !== undefined) {
        ingests.push(best.ingest);
        allReads.push(...best.reads);
      }
    }
    const runs: RunReport[] = ingests.map((i) => ({
      ...runJson(i.peer.title, i.peer.writeUrl, 'samples', i.recorder, i.stoppedBy),
      load: loadJson(c, prepared, i.sent),
      server: serverJson(i),
      responsiveness: i.responsiveness,
    }));
    const notes: string[] = [];
    if (interrupted) notes.push('interrupted (Ctrl-C): the servers after the interrupted one were not run');
    for (const f of failed) notes.push(`${peerTitle(f)} failed (see the log above)`);
    const overGrpc = grpcRatio(ingests);
    if (overGrpc !== undefined) notes.push(overGrpc);
    const report = reportJson('compare', argv, startedAt, runs, notes);
    process.stdout.write(`\n${reportSummary(report)}\n`);
    if (ingests.length > 0) {
      const section = markdownSection({ plan: prepared.plan, profile: prepared.profileName, config: c, ingests, reads: allReads, cases: context.cases, encodeSeconds: prepared.encodeSeconds, load0, command: argv, ...(via === undefined ? {} : { via }) });
      process.stdout.write(`\n${section}\n`);
      if (c.markdown !== undefined) writeFileSync(c.markdown, section);
    }
    const written = writeReports(report, c);
    if (c.markdown !== undefined && ingests.length > 0) written.push(c.markdown);
    if (written.length > 0) progress.log(`written: ${written.join(', ')}`);
    if (interrupted) return EXIT_INTERRUPTED;
    return failed.length === 0 && ingests.every((i) => i.sent.written > 0) ? 0 : 1;
  } finally {
    process.off('SIGINT', onInterrupt);
    await stopAll();
    rmSync(parent, { recursive: true, force: true });
  }
}
