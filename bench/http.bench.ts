// npm run bench:http — the JSON resources over HTTP under wrk, side by side
// in one run with a bare uWebSockets.js hello world and a Fastify server
// doing the same GET from a Map. Cases: GET one task, GET a list of 100,
// POST create (durable: each 201 waits for the group-commit fsync). Prints
// req/s and p99 per case with the ratios, and writes a dated section into
// bench/RESULTS.md. Everything on 127.0.0.1; every child stopped at the end.
//
// Env: BENCH_DURATION (seconds per case, default 10), BENCH_WARMUP
// (seconds, default 2), BENCH_CONNECTIONS (default 64), BENCH_THREADS (2).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const TASKS = 1000;
/** A child must be listening within this. */
const START_TIMEOUT_MS = 30_000;
/** A child gets this long to stop after SIGTERM before SIGKILL. */
const STOP_TIMEOUT_MS = 10_000;

interface WrkResult {
  rps: number;
  p99ms: number;
  errors: number;
}

const children: ChildProcess[] = [];

function fail(message: string): never {
  throw new Error(`bench:http: ${message}`);
}

/** Starts a child and resolves with the port it reports (from a JSON line on stdout or stderr). */
function startChild(name: string, args: string[], portOf: (line: string) => number | undefined): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in ${START_TIMEOUT_MS} ms:\n${output}`)), START_TIMEOUT_MS);
    const onData = (b: Buffer) => {
      output += b.toString();
      for (const line of output.split('\n')) {
        const port = portOf(line);
        if (port === undefined) continue;
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve({ child, port });
        return;
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
}

function jsonPort(line: string): number | undefined {
  if (!line.startsWith('{"port":')) return undefined;
  return (JSON.parse(line) as { port: number }).port;
}

function strataPort(line: string): number | undefined {
  if (!line.includes('"strata started"')) return undefined;
  return Number((JSON.parse(line) as { httpAddress: string }).httpAddress.split(':').pop());
}

async function stopAll(): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(value);
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

/** Runs wrk for `seconds` against `url` and parses req/s, p99 and failed requests. */
function wrk(url: string, seconds: number, script?: string): WrkResult {
  const args = [`-t${THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...(script ? ['-s', script] : []), url];
  const r = spawnSync('wrk', args, { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  if (r.status !== 0) fail(`wrk ${args.join(' ')} failed: ${r.stderr || r.error}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1]);
  const p99 = toMs(/^\s+99%\s+(\S+)/m.exec(r.stdout)?.[1] ?? '');
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(r.stdout)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(r.stdout);
  const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((n, x) => n + Number(x), 0) : 0);
  return { rps, p99ms: p99, errors };
}

function measure(label: string, url: string, script?: string): WrkResult {
  if (WARMUP > 0) wrk(url, WARMUP, script);
  const result = wrk(url, DURATION, script);
  console.log(`${label.padEnd(34)} ${result.rps.toFixed(0).padStart(8)} req/s   p99 ${result.p99ms.toFixed(2).padStart(7)} ms${result.errors ? `   ${result.errors} errors` : ''}`);
  return result;
}

async function seed(base: string): Promise<void> {
  for (let id = 1; id <= TASKS; id++) {
    const r = await fetch(`${base}/api/v1/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: `task ${id}` }),
    });
    if (r.status !== 201) fail(`seeding task ${id}: ${r.status} ${await r.text()}`);
  }
}

function writeResults(section: string): void {
  const path = join(root, 'bench/RESULTS.md');
  const current = readFileSync(path, 'utf8');
  const firstSection = current.indexOf('\n## ');
  const next = firstSection < 0 ? `${current.trimEnd()}\n\n${section}` : `${current.slice(0, firstSection + 1)}${section}\n${current.slice(firstSection + 1)}`;
  writeFileSync(path, next);
}

async function main(): Promise<void> {
  if (spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error) fail('wrk is not installed: apt-get install -y wrk (Debian package)');
  if (!existsSync(join(root, 'dist/cli/main.js')) || !existsSync(join(root, 'dist/http/index.js'))) fail('not built: run `npm run build:ts` first');

  const dataParent = mkdtempSync(join(tmpdir(), 'strata-bench-http-'));
  try {
    const strata = await startChild(
      'strata serve',
      ['bin/strata.js', 'serve', '--data-dir', join(dataParent, 'data'), '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0', '--workers', '1', '--log.format', 'json'],
      strataPort,
    );
    const hello = await startChild('uws hello', ['--import', 'tsx', 'bench/http-peers/uws-hello.ts'], jsonPort);
    const fastify = await startChild('fastify', ['--import', 'tsx', 'bench/http-peers/fastify-map.ts', String(TASKS)], jsonPort);
    const strataBase = `http://127.0.0.1:${strata.port}`;
    await seed(strataBase);

    console.log(`wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}s (after ${WARMUP} s warm-up), ${cpus().length} cores shared by wrk and the server\n`);
    const helloOne = measure('uWS hello world', `http://127.0.0.1:${hello.port}/`);
    const strataOne = measure('strata GET one task', `${strataBase}/api/v1/tasks/1`);
    const fastifyOne = measure('fastify GET one task (Map)', `http://127.0.0.1:${fastify.port}/api/v1/tasks/1`);
    const strataList = measure('strata GET list of 100', `${strataBase}/api/v1/tasks?limit=100`);
    const fastifyList = measure('fastify GET list of 100 (Map)', `http://127.0.0.1:${fastify.port}/api/v1/tasks`);
    const strataPost = measure('strata POST create (durable)', `${strataBase}/api/v1/tasks`, join(root, 'bench/http-peers/post-task.lua'));

    const vsHello = strataOne.rps / helloOne.rps;
    const vsFastify = strataOne.rps / fastifyOne.rps;
    const verdict = (ok: boolean) => (ok ? 'met' : 'not met');
    console.log(`\nGET one / hello world: ${(vsHello * 100).toFixed(0)}% (target >= 70%: ${verdict(vsHello >= 0.7)})`);
    console.log(`GET one / fastify:     ${vsFastify.toFixed(2)}x (target >= 1.3x: ${verdict(vsFastify >= 1.3)})`);
    console.log(`POST durable:          ${strataPost.rps.toFixed(0)} req/s (target >= 10,000: ${verdict(strataPost.rps >= 10_000)})`);

    const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
    const row = (name: string, server: string, r: WrkResult) => `| ${name} | ${server} | ${r.rps.toFixed(0)} | ${r.p99ms.toFixed(2)} | ${r.errors} |`;
    const section = `## HTTP resources — ${new Date().toISOString().slice(0, 10)}

- Machine: ${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}.
- Command: \`npm run bench:http\`: wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}s --latency per case after a ${WARMUP} s warm-up,
  all servers on 127.0.0.1, started in the same run; wrk shares the cores with the server under test,
  so the ratios matter more than the absolute figures. Strata: \`strata serve --workers 1\` on a fresh
  data directory with ${TASKS} tasks. Fastify ${readFastifyVersion()} serves the same task JSON kept serialised in a Map.

| case | server | req/s | p99 ms | errors |
|---|---|---|---|---|
${row('hello world', 'bare uWebSockets.js', helloOne)}
${row('GET one task', 'strata', strataOne)}
${row('GET one task', 'fastify (Map)', fastifyOne)}
${row('GET list of 100', 'strata', strataList)}
${row('GET list of 100', 'fastify (Map)', fastifyList)}
${row('POST create, durable', 'strata', strataPost)}

| target | result |
|---|---|
| GET one task at least 70% of the hello world | ${verdict(vsHello >= 0.7)}: ${(vsHello * 100).toFixed(0)}% |
| GET one task at least 1.3x Fastify | ${verdict(vsFastify >= 1.3)}: ${vsFastify.toFixed(2)}x |
| durable POST at least 10,000 req/s | ${verdict(strataPost.rps >= 10_000)}: ${strataPost.rps.toFixed(0)} |
`;
    writeResults(section);
    console.log('\nwritten to bench/RESULTS.md');
  } finally {
    await stopAll();
    rmSync(dataParent, { recursive: true, force: true });
  }
}

function readFastifyVersion(): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules/fastify/package.json'), 'utf8')) as { version: string }).version;
}

process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
try {
  await main();
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
}
