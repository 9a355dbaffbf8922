/**
 * The package as a user gets it: `npm pack` of the built repository,
 * installed into a temporary project (`npm install <tarball>`, from the
 * npm cache where it can), then used from there as a user would (./consumer):
 * plain ESM JavaScript opens a store, writes, reads, serves on 127.0.0.1
 * and is queried over HTTP and the Store API, and closes; a TypeScript file
 * is type-checked against the installed .d.ts files (strict, no
 * skipLibCheck); the `strata` command runs. A file missing from the
 * tarball, a wrong `exports` entry or a broken declaration fails here.
 *
 * Needs the build (`npm test` builds first; alone: `npm run build`).
 * `npm pack --ignore-scripts` packs that build as it is: `prepare` would
 * build again, while other test files run the same dist/ in parallel. The
 * install needs the npm registry or a warm cache (the repository's own
 * install fills it) and compiles the one native addon (native/mmap): about a
 * minute here, a few on a fresh machine.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

const root = fileURLToPath(new URL('../../', import.meta.url));
const consumer = fileURLToPath(new URL('./consumer/', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };

/** Installing resolves ~260 packages and compiles native/mmap: minutes on a cold cache. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const RUN_TIMEOUT_MS = 120_000;

/** What the package exports, exactly: a new export is a decision, an internal one leaking out a mistake. */
const EXPORTS = [
  'ClosedError', 'DataDirInUseError', 'InternalError', 'InvalidArgumentError', 'LimitError', 'ListenError', 'SamplesRejectedError',
  'Strata', 'StrataError', 'UnavailableError',
];

/**
 * The environment for the npm and node children: without what an outer
 * `npm test` sets for its own package (npm_package_*, npm_lifecycle_*,
 * its local prefix), which would make npm treat the repository as the
 * project being installed into.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    const key = k.toLowerCase();
    if (key.startsWith('npm_package_') || key.startsWith('npm_lifecycle_') || key === 'npm_config_local_prefix' || key === 'init_cwd') continue;
    env[k] = v;
  }
  return env;
}

function run(cmd: string, args: string[], cwd: string, timeout: number): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, timeout, env: childEnv(), maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')} failed (${err.message})\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** Runs `cmd` expecting a non-zero exit; returns its stderr (bounded by RUN_TIMEOUT_MS). */
function runExpectingFailure(cmd: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, timeout: RUN_TIMEOUT_MS, env: childEnv() }, (err, stdout, stderr) => {
      if (err === null) reject(new Error(`${cmd} ${args.join(' ')} succeeded; expected a failure\n${stdout}${stderr}`));
      else if (err.killed) reject(new Error(`${cmd} ${args.join(' ')} did not finish in ${RUN_TIMEOUT_MS} ms\n${stderr}`));
      else resolve(stderr);
    });
  });
}

/** Fails early, and says why, when the build is missing or older than the library's sources. */
function assertBuilt(): void {
  for (const f of ['dist/index.js', 'dist/index.d.ts', 'build/strata.wasm', 'dist/cli/main.js']) {
    assert.ok(existsSync(join(root, f)), `${f} is missing: run \`npm run build\` first`);
  }
  const sources = ['src/index.ts', ...readdirSync(join(root, 'src/lib')).map((f) => `src/lib/${f}`)];
  for (const src of sources) {
    const out = join(root, src.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js'));
    assert.ok(existsSync(out) && statSync(out).mtimeMs >= statSync(join(root, src)).mtimeMs, `${out} is older than ${src}: run \`npm run build\` first`);
  }
}

describe('the npm package', { timeout: INSTALL_TIMEOUT_MS + 5 * RUN_TIMEOUT_MS }, () => {
  let dir: string;
  let app: string;
  let files: string[];

  before(async () => {
    assertBuilt();
    dir = mkdtempSync(join(tmpdir(), 'strata-package-'));
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root, RUN_TIMEOUT_MS);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    files = info!.files.map((f) => f.path);
    app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'strata-consumer', private: true, type: 'module' }));
    // --prefer-offline: what the cache holds is used without asking the registry again.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', join(dir, info!.filename)], app, INSTALL_TIMEOUT_MS);
    for (const f of ['use.mjs', 'check.mts', 'tsconfig.json']) copyFileSync(join(consumer, f), join(app, f));
  });

  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('holds what runs and what types, and no sources or tests', () => {
    for (const f of ['package.json', 'bin/strata.js', 'dist/index.js', 'dist/index.d.ts', 'dist/lib/strata.d.ts', 'dist/worker/main.js', 'build/strata.wasm', 'proto/thanos/store/rpc.proto']) {
      assert.ok(files.includes(f), `${f} is not in the tarball`);
    }
    assert.deepEqual(files.filter((f) => /^(src|test|bench|assembly|scripts)\//.test(f) || f.endsWith('.map')), []);
  });

  test('a JavaScript program opens, writes, reads, serves and closes a store through it', async () => {
    const { stdout } = await run(process.execPath, ['use.mjs', join(dir, 'data')], app, RUN_TIMEOUT_MS);
    const summary = JSON.parse(stdout.trim().split('\n').pop()!) as { exports: string[] };
    assert.deepEqual(summary.exports, EXPORTS);
  });

  test('its declarations type-check a TypeScript program, strictly', async () => {
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], app, RUN_TIMEOUT_MS);
  });

  test('leaves out the optional pieces (the S3 SDK, Chart.js) and names them when they are asked for', async () => {
    for (const p of ['@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@smithy/util-retry', 'chart.js']) {
      assert.ok(!existsSync(join(app, 'node_modules', p)), `${p} was installed with the package`);
    }
    const bucket = 'type: S3\nconfig:\n  bucket: b\n  endpoint: 127.0.0.1:9\n  insecure: true\n  access_key: a\n  secret_key: s\n';
    const serve = await runExpectingFailure(join(app, 'node_modules/.bin/strata'), ['serve', '--data-dir', join(dir, 's3-data'), '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0', '--objstore.config', bucket], app);
    assert.match(serve, /an S3 bucket \(--objstore\.config type: S3\) needs the optional packages @aws-sdk\/client-s3, .*: npm install @aws-sdk\/client-s3 @aws-sdk\/credential-providers @aws-sdk\/lib-storage @smithy\/node-http-handler @smithy\/util-retry/);
  });

  test('installs the strata command', async () => {
    const { stdout } = await run(join(app, 'node_modules/.bin/strata'), ['--version'], app, RUN_TIMEOUT_MS);
    assert.equal(stdout.trim(), pkg.version);
  });
});
