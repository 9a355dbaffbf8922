// The README's commands and snippets, checked as written: the marked shell
// blocks run against a real `strata serve` (the server block itself, on free
// 127.0.0.1 ports and a temporary data directory), the config snippets parse,
// every strata flag named exists, every relative link resolves.
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { parseBucketConfig } from '../../src/objstore/config.js';
import { anchors, fencedBlocks, linkTargets } from '../support/markdown.js';
import { tempDir } from '../support/db.js';

const root = new URL('../../', import.meta.url).pathname;
const bin = join(root, 'bin/strata.js');
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');
const blocks = fencedBlocks(readme);
const ofKind = (kind: string) => blocks.filter((b) => b.kind === kind);
const run = promisify(execFile);

/** The server block's addresses, which the other snippets must point at. */
const serverBlock = ofKind('server');
const serverText = serverBlock[0]?.text ?? '';
const httpAddress = /--http-address (\S+)/.exec(serverText)?.[1];
const grpcAddress = /--grpc-address (\S+)/.exec(serverText)?.[1];

function markdownFiles(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Each `strata SUBCOMMAND ...` in the README's shell blocks: the subcommand and the flags it is given. */
function strataCommands(): Array<{ sub: string; flags: string[]; line: string }> {
  const found = [];
  for (const b of blocks.filter((x) => x.lang === 'sh')) {
    for (const raw of b.text.replace(/\\\n/g, ' ').split('\n')) {
      const line = raw.replace(/(^|\s)#.*$/, '');
      const m = /\bstrata ((?:bench (?:remote-write|store-api|compare))|serve|sidecar|bench|tsdb check)\b(.*)$/.exec(line);
      if (!m) continue;
      const flags = m[2]!.split(/\s+/).filter((w) => w.startsWith('--')).map((w) => w.split('=')[0]!);
      found.push({ sub: m[1]!, flags, line: line.trim() });
    }
  }
  return found;
}

const hasFlag = (help: string, flag: string): boolean =>
  new RegExp(`(^|[\\s,(])${flag.replace(/[.]/g, '\\.')}(?=[\\s=,)]|$)`, 'm').test(help);

describe('the README', () => {
  test('is under 500 lines and names no file outside the repository (WIRE.md)', () => {
    assert.ok(readme.split('\n').length < 500, `${readme.split('\n').length} lines`);
    for (const f of ['README.md', ...markdownFiles('docs')]) assert.ok(!read(f).includes('WIRE.md'), f);
  });

  test('every relative link of README.md and docs/ resolves, anchors included', () => {
    const broken: string[] = [];
    for (const file of ['README.md', ...markdownFiles('docs')]) {
      for (const target of linkTargets(read(file))) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#');
        const to = path === '' ? file : relative(root, join(root, dirname(file), path!));
        if (!existsSync(join(root, to))) broken.push(`${file}: ${target} (no ${to})`);
        else if (anchor !== undefined && to.endsWith('.md') && !anchors(read(to)).has(anchor)) broken.push(`${file}: ${target} (no heading #${anchor} in ${to})`);
      }
    }
    assert.deepEqual(broken, []);
  });

  test('has one server block, on 127.0.0.1 addresses', () => {
    assert.equal(serverBlock.length, 1);
    assert.match(httpAddress ?? '', /^127\.0\.0\.1:\d+$/);
    assert.match(grpcAddress ?? '', /^127\.0\.0\.1:\d+$/);
  });

  test("the prometheus.yml snippets parse and point at Strata's remote write and read", () => {
    const snippets = ofKind('prometheus-yml').map((b) => parseYaml(b.text) as Record<string, Array<{ url: string }>>);
    const urls = (key: string) => snippets.flatMap((s) => s[key] ?? []).map((e) => new URL(e.url));
    const write = urls('remote_write');
    const readUrls = urls('remote_read');
    assert.ok(write.length > 0 && readUrls.length > 0, 'a remote_write and a remote_read snippet');
    for (const u of write) assert.ok(['/api/v1/write', '/api/v1/receive'].includes(u.pathname), u.href);
    for (const u of readUrls) assert.equal(u.pathname, '/api/v1/read');
    for (const u of [...write, ...readUrls]) assert.equal(u.host, httpAddress);
  });

  test("the OpenTelemetry Collector's otlphttp exporter posts to the OTLP route", () => {
    const [otel] = ofKind('otel-yaml');
    const config = parseYaml(otel!.text) as { exporters: Record<string, { endpoint: string }>; service: { pipelines: { metrics: { exporters: string[] } } } };
    const names = config.service.pipelines.metrics.exporters;
    assert.ok(names.length > 0);
    for (const name of names) {
      assert.match(name, /^otlphttp(\/|$)/);
      // The exporter appends /v1/metrics to its endpoint.
      const url = new URL(`${config.exporters[name]!.endpoint}/v1/metrics`);
      assert.equal(url.pathname, '/api/v1/otlp/v1/metrics');
      assert.equal(url.host, httpAddress);
    }
  });

  test("the hashring.json snippet is Thanos' format, its endpoints Strata's gRPC port", () => {
    const [ring] = ofKind('hashring-json');
    const hashrings = JSON.parse(ring!.text) as Array<Record<string, unknown>>;
    assert.ok(Array.isArray(hashrings) && hashrings.length > 0);
    const keys = new Set(['hashring', 'tenants', 'tenant_matcher_type', 'endpoints', 'algorithm', 'external_labels', 'shuffle_sharding_config']);
    for (const h of hashrings) {
      for (const k of Object.keys(h)) assert.ok(keys.has(k), `unknown hashring key ${k}`);
      const endpoints = h.endpoints as Array<string | { address: string }>;
      assert.ok(Array.isArray(endpoints) && endpoints.length > 0, 'endpoints');
      for (const e of endpoints) {
        const address = typeof e === 'string' ? e : e.address;
        assert.equal(address.split(':').pop(), grpcAddress!.split(':').pop(), address);
      }
    }
  });

  test('the bucket configuration parses as strata serve reads it', () => {
    const [bucket] = ofKind('objstore-yaml');
    assert.equal(parseBucketConfig(bucket!.text).type, 'FILESYSTEM');
  });

  test("thanos query's --endpoint is the server's gRPC address", () => {
    const [query] = ofKind('thanos-query');
    assert.equal(/--endpoint=(\S+)/.exec(query!.text)?.[1], grpcAddress);
  });
});

const subs = [...new Set([...readme.matchAll(/\bstrata (serve|sidecar|bench(?: (?:remote-write|store-api|compare))?|tsdb check)\b/g)].map((m) => m[1]!))];
const helps = new Map<string, string>();

async function loadHelps(): Promise<void> {
  await Promise.all(subs.map(async (sub) => {
    const { stdout } = await run(process.execPath, [bin, ...sub.split(' '), '--help']);
    helps.set(sub, stdout);
  }));
}

describe("the README's strata commands", () => {
  const commands = strataCommands();

  test('each subcommand the README names answers --help', () => {
    assert.ok(subs.includes('serve') && subs.includes('sidecar') && subs.includes('bench remote-write'), subs.join(', '));
    for (const sub of subs) assert.match(helps.get(sub)!, /Usage:/, sub);
  });

  test('each flag given to a strata command exists in that command', () => {
    assert.ok(commands.length >= 5, `${commands.length} commands`);
    for (const c of commands) for (const f of c.flags) assert.ok(hasFlag(helps.get(c.sub)!, f), `${f} is not a flag of strata ${c.sub}: ${c.line}`);
  });

  test('each flag of the Flags section is a flag of strata serve', () => {
    const section = /^### Flags\n([\s\S]*?)^### /m.exec(readme)?.[1] ?? '';
    const flags = [...new Set([...section.matchAll(/`(--[a-z][\w.-]*)/g)].map((m) => m[1]!))].filter((f) => f !== '--help');
    assert.ok(flags.length >= 15, `${flags.length} flags`);
    for (const f of flags) assert.ok(hasFlag(helps.get('serve')!, f), `${f} is not a flag of strata serve`);
  });
});

/**
 * `npx strata` runs as `node bin/strata.js`: the command npx finds in the clone
 * (package.json's bin, checked below). npx itself is not run: its first call
 * in a clone links the package into its cache and runs the package's prepare
 * script, a rebuild of dist/ under the other test files running meanwhile.
 */
const NPX_STRATA = `npx() { if [ "$1" = strata ]; then shift; "${process.execPath}" "${bin}" "$@"; else command npx "$@"; fi; }\n`;

test("package.json's bin makes `npx strata` in the clone run bin/strata.js", () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
  assert.equal(pkg.bin?.strata, 'bin/strata.js');
});

const data = tempDir('strata-readme-');
let server: ReturnType<typeof spawn> | undefined;
let stderr = '';
let http = '';
let grpc = '';

/** Starts the README's server block as written, on free ports and a temporary data directory. */
async function startServer(): Promise<void> {
  // The server block as written, on free ports and a temporary data directory.
  const words = serverText.replace('./data', data.dir).replace(httpAddress!, '127.0.0.1:0').replace(grpcAddress!, '127.0.0.1:0').split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ['npx', 'strata']);
  server = spawn(process.execPath, [bin, ...words.slice(2)], { cwd: root, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  server.stderr!.on('data', (b: Buffer) => { stderr += b.toString(); });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "strata started" in 60 s:\n${stderr}`)), 60_000);
    const check = () => {
      const m = /msg="strata started".*grpcAddress=(\S+) httpAddress=(\S+)/.exec(stderr);
      if (m) { clearTimeout(timer); grpc = m[1]!; http = m[2]!; resolve(); }
    };
    server!.stderr!.on('data', check);
    server!.once('exit', (code) => { clearTimeout(timer); reject(new Error(`strata serve exited with ${code}:\n${stderr}`)); });
  });
}

// The help texts and the server's start are the slow parts: one wait for both.
before(() => Promise.all([loadHelps(), startServer()]));

/** Whether any process of the group `pgid` is still running. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

after(async () => {
  const pgid = server?.pid;
  if (pgid !== undefined && groupAlive(pgid)) {
    // npx exits before the strata serve it started: wait for the whole group, not npx alone.
    process.kill(-pgid, 'SIGTERM');
    for (let waited = 0; groupAlive(pgid) && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    for (let waited = 0; groupAlive(pgid) && waited < 5_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  }
  data.remove();
});

describe("the README's marked commands, against its strata serve", () => {
  test('each marked block exits 0 and prints what the README says', async () => {
    const runs = ofKind('run');
    assert.ok(runs.length >= 3, `${runs.length} blocks`);
    for (const b of runs) {
      const script = NPX_STRATA + b.text.replaceAll(httpAddress!, http).replaceAll(grpcAddress!, grpc);
      const { stdout } = await run('sh', ['-ec', script], { cwd: root, timeout: 60_000 }).catch((err: Error & { stdout?: string; stderr?: string }) => {
        throw new Error(`README line ${b.line} failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`);
      });
      if (b.expect !== undefined) assert.ok(stdout.includes(b.expect), `README line ${b.line}: no "${b.expect}" in:\n${stdout}`);
    }
  });
});
