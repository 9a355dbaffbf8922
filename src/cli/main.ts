import { parseServeArgs, serveHelp } from './serve-options.js';
import { serve } from './serve.js';
import { parseSidecarArgs, sidecarHelp } from './sidecar-options.js';
import { sidecar } from './sidecar.js';
import { tsdbCheck } from './tsdb-check.js';
import { EXIT_STARTUP } from './startup-failure.js';
import { EXIT_USAGE, UsageError } from '../config/usage-error.js';
import { ListenError, TlsFileError } from '../http/index.js';
import { MissingOptionalPackageError } from '../errors/optional-package.js';
import { PACKAGE_VERSION } from '../config/package-version.js';



export const help = `Strata ${PACKAGE_VERSION}: a time-series store behind the Thanos Store API.

Usage:
  strata serve [flags]   run the server (strata serve --help lists its flags)
  strata sidecar [flags] run beside a Prometheus, as Thanos' sidecar (strata sidecar --help)
  strata bench MODE      load-test a remote-write receiver or a Store API (strata bench --help)
  strata tsdb check DIR  report what is damaged in a data directory, changing nothing (strata tsdb check --help)
  strata --version       print the version
  strata --help          print this help`;

/** Turns node:util parseArgs errors into one line that names the flag. */
function usageMessage(err: unknown): string | undefined {
  if (err instanceof UsageError) return err.message;
  const code = (err as { code?: string }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    const first = (err as Error).message.split(/\.\s/)[0]!;
    return first.charAt(0).toLowerCase() + first.slice(1);
  }
  return undefined;
}

/** strata bench's modes, each with its own --help. */
const BENCH_MODES: ReadonlySet<string> = new Set(['remote-write', 'store-api', 'compare']);

/** The help a usage error points to: the subcommand's own where there is one. */
function helpFor(command: string | undefined, rest: string[]): string {
  if (command === 'serve' || command === 'sidecar') return `strata ${command} --help`;
  if (command === 'tsdb' && rest[0] === 'check') return 'strata tsdb check --help';
  if (command === 'bench') return rest[0] !== undefined && BENCH_MODES.has(rest[0]) ? `strata bench ${rest[0]} --help` : 'strata bench --help';
  return 'strata --help';
}

/** Runs the CLI with `args` (no node or script name) and returns the exit status. */
export async function run(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      console.log(help);
      return command === undefined ? EXIT_USAGE : 0;
    }
    if (command === '--version' || command === '-v') {
      console.log(PACKAGE_VERSION);
      return 0;
    }
    if (command === 'serve') {
      const config = parseServeArgs(rest);
      if (config === 'help') {
        console.log(serveHelp);
        return 0;
      }
      return await serve(config);
    }
    if (command === 'sidecar') {
      const config = parseSidecarArgs(rest);
      if (config === 'help') {
        console.log(sidecarHelp);
        return 0;
      }
      return await sidecar(config);
    }
    if (command === 'tsdb') {
      const [sub, ...args] = rest;
      if (sub === 'check') return await tsdbCheck(args);
      throw new UsageError(sub === undefined ? 'tsdb takes a subcommand: check' : `unknown tsdb subcommand '${sub}' (strata tsdb check --help)`);
    }
    if (command === 'bench') {
      // Loaded only when asked for: the load tester is not part of the server's start.
      const { bench } = await import('../bench/command.js');
      return await bench(rest);
    }
    throw new UsageError(command.startsWith('-') ? `unknown flag '${command}'` : `unknown command '${command}'`);
  } catch (err) {
    const message = usageMessage(err);
    if (err instanceof TlsFileError || err instanceof ListenError || err instanceof MissingOptionalPackageError) {
      // The operator's to fix (a TLS file, a taken port, a package to install): one line naming it, no stack.
      console.error(`strata: ${err.message}`);
      return EXIT_STARTUP;
    }
    if (message === undefined) throw err;
    // A message that names its help already (tsdb check's) is not given a second pointer.
    console.error(`strata: ${message}${message.includes('--help') ? '' : ` (see ${helpFor(command, rest)})`}`);
    return EXIT_USAGE;
  }
}
