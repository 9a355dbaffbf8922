/**
 * `strata bench`: a load tester for any Prometheus remote-write receiver
 * or Thanos Store API, and the side-by-side comparison of Strata with
 * VictoriaMetrics and Prometheus. Each mode is loaded only when asked for.
 */
import { UsageError } from '../config/usage-error.js';

export const benchHelp = `strata bench: load-test a remote-write receiver or a Thanos Store API.

Usage:
  strata bench remote-write --url URL [flags]   send a realistic remote-write load over HTTP, or over gRPC with
                                                a grpc://HOST:PORT URL (strata bench remote-write --help)
  strata bench store-api --addr HOST:PORT [flags]
                                                Series, LabelNames and LabelValues load (strata bench store-api --help)
  strata bench compare [flags]                  the same load against Strata, VictoriaMetrics and Prometheus
                                                found on the PATH, one after another (strata bench compare --help)

Every mode takes --duration, --concurrency, --json FILE and --report FILE.html; Ctrl-C stops
a run and prints and writes what it measured so far.`;

/** With --report, loads Chart.js (an optional package) now: if it is missing, say so before the run, not after it. */
async function readyForReport(c: { report?: string }): Promise<void> {
  if (c.report === undefined) return;
  const { chartBundle } = await import('./report/html.js');
  chartBundle();
}

/** Runs `strata bench ARGS`; returns the exit status. */
export async function bench(args: string[]): Promise<number> {
  const [mode, ...rest] = args;
  if (mode === undefined || mode === '--help' || mode === '-h' || mode === 'help') {
    console.log(benchHelp);
    return mode === undefined ? 2 : 0;
  }
  switch (mode) {
    case 'remote-write': {
      const { parseRemoteWriteArgs, remoteWriteHelp } = await import('./remote-write/options.js');
      const config = parseRemoteWriteArgs(rest);
      if (config === 'help') {
        console.log(remoteWriteHelp);
        return 0;
      }
      await readyForReport(config);
      const { benchRemoteWrite } = await import('./remote-write/command.js');
      return benchRemoteWrite(config, args);
    }
    case 'store-api': {
      const { parseStoreApiArgs, storeApiHelp } = await import('./store-api/options.js');
      const config = parseStoreApiArgs(rest);
      if (config === 'help') {
        console.log(storeApiHelp);
        return 0;
      }
      await readyForReport(config);
      const { benchStoreApi } = await import('./store-api/command.js');
      return benchStoreApi(config, args);
    }
    case 'compare': {
      const { parseCompareArgs, compareHelp } = await import('./compare/options.js');
      const config = parseCompareArgs(rest);
      if (config === 'help') {
        console.log(compareHelp);
        return 0;
      }
      await readyForReport(config);
      const { benchCompare } = await import('./compare/command.js');
      return benchCompare(config, args);
    }
    default:
      throw new UsageError(mode.startsWith('-') ? `bench: unknown flag '${mode}' before the mode (remote-write, store-api or compare)` : `bench: unknown mode '${mode}' (remote-write, store-api or compare)`);
  }
}
