// Starts `strata serve` (the built dist/) as a child process on 127.0.0.1
// with a temporary data directory, and stops it again. Its log is asked for
// as JSON (the default is logfmt) to read the addresses it listens on.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVER_NODE_FLAGS } from '../../src/config/node-flags.js';

const root = new URL('../..', import.meta.url).pathname;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

export interface StrataServer {
  child: ChildProcess;
  dataDir: string;
  grpcPort: number;
  httpPort: number;
  /** SIGTERM (the head is flushed), then the data directory is removed unless `keep`. */
  stop(opts?: { keep?: boolean }): Promise<void>;
}

export function startStrata(extraArgs: string[] = [], existingDataDir?: string): Promise<StrataServer> {
  const dataDir = existingDataDir ?? mkdtempSync(join(tmpdir(), 'strata-bench-'));
  // STRATA_NODE_ARGS: extra node flags for the server, e.g. --cpu-prof to profile it.
  const nodeArgs = (process.env.STRATA_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, join(root, 'bin/strata.js'), 'serve', '--data-dir', dataDir,
    '--grpc-address', '127.0.0.1:0', '--http-address', '127.0.0.1:0', '--log.format', 'json', ...extraArgs], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  const stop = async (opts: { keep?: boolean } = {}): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    if (!opts.keep) rmSync(dataDir, { recursive: true, force: true });
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`strata did not start in ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    child.stderr!.on('data', (b: Buffer) => {
      output += b.toString();
      const line = output.split('\n').find((l) => l.includes('"strata started"'));
      if (line === undefined) return;
      clearTimeout(timer);
      child.stderr!.removeAllListeners('data');
      child.stderr!.resume();
      const o = JSON.parse(line) as { grpcAddress: string; httpAddress: string };
      const port = (a: string) => Number(a.split(':').pop());
      resolve({ child, dataDir, grpcPort: port(o.grpcAddress), httpPort: port(o.httpAddress), stop });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`strata exited with ${code}:\n${output}`));
    });
  });
}
