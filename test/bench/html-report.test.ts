// The HTML report opened in a real headless Chromium (Debian package
// `chromium`): the page is self-contained, its three charts are drawn (the
// page's own marker, and their colours in a screenshot decoded here), and
// the browser logs no console message and no script error.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { reportJson, runJson } from '../../src/bench/report/build.js';
import { renderHtml } from '../../src/bench/report/html.js';
import { Recorder } from '../../src/bench/run/recorder.js';
import { countColour, decodePng } from './support/png.js';

/** The first browser found on PATH. */
function findChromium(): string | undefined {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() !== '') return r.stdout.trim();
  }
  return undefined;
}

const chromium = findChromium();
const BROWSER_TIMEOUT_MS = 60_000;

/** Runs headless Chromium on `url` with `args`; resolves with its stdout and stderr. */
function browse(profileDir: string, url: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(chromium!, [
      '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions', '--hide-scrollbars',
      `--user-data-dir=${profileDir}`, '--enable-logging=stderr', '--v=0', '--virtual-time-budget=10000', '--window-size=1200,1600',
      ...args, url,
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => { stdout += b.toString(); });
    child.stderr.on('data', (b: Buffer) => { stderr += b.toString(); });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`chromium did not finish in ${BROWSER_TIMEOUT_MS} ms:\n${stderr.slice(-2000)}`));
    }, BROWSER_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A report as a real run makes it: 12 s of answers with a slow spell and a few errors. */
function sampleReport(): ReturnType<typeof reportJson> {
  const r = new Recorder(1000);
  r.start(0);
  for (let i = 0; i < 1200; i++) {
    const now = i * 10 + 5;
    const slow = i > 500 && i < 700;
    const outcome = i % 97 === 0 ? { kind: 'http' as const, status: 500, message: 'internal <error>' }
      : i % 151 === 0 ? { kind: 'http' as const, status: 429, message: 'slow down' }
      : i % 333 === 0 ? { kind: 'network' as const, code: 'ECONNRESET', message: 'socket hang up' } : { kind: 'ok' as const };
    r.record(slow ? 40 + (i % 7) : 5 + (i % 5), outcome, outcome.kind === 'ok' ? { items: 2000, bytes: 40_000 } : { bytes: 40_000 }, now);
  }
  r.finish(12_050);
  const run = {
    ...runJson('127.0.0.1:1', 'http://127.0.0.1:1/api/v1/write', 'samples', r, 'duration'),
    responsiveness: {
      readiness: { url: 'http://127.0.0.1:1/-/ready', intervalMs: 100, probes: 120, ok: 118, failures: 2, byCode: { '503': 2 }, latencyMs: { count: 120, mean: 3, p50: 2.5, p90: 4, p99: 37.5, p999: 61, max: 61 }, slowMs: 50, slow: 1 },
      serverEventLoop: null,
      probeEventLoop: { minMs: 10, meanMs: 10.3, p50Ms: 10.1, p90Ms: 10.6, p99Ms: 12.5, maxMs: 14 },
      notes: ['server event loop not read: http://127.0.0.1:1/metrics has no <nodejs_eventloop_lag_p99_seconds>'],
    },
  };
  return reportJson('remote-write', ['remote-write', '--url', 'http://127.0.0.1:1/api/v1/write', '--note', '</script><b>'], new Date(), [run]);
}

describe('bench HTML report: responsiveness', () => {
  test('a table of readiness probes and event-loop delay per run, notes escaped', () => {
    const html = renderHtml(sampleReport());
    assert.match(html, /<h2>Responsiveness during the load<\/h2>/);
    assert.match(html, /<tr><td>127\.0\.0\.1:1<\/td><td>120<\/td><td>2<\/td><td>2\.50 \/ 37\.5 \/ 61\.0<\/td><td>n\/a<\/td><td>12\.5 \/ 14\.0<\/td><\/tr>/);
    assert.match(html, /has no &lt;nodejs_eventloop_lag_p99_seconds&gt;<\/p>/);
  });
});

describe('bench HTML report: answers', () => {
  test('a run with errors gets the answers-by-code chart and the first message of each code', () => {
    const html = renderHtml(sampleReport());
    assert.match(html, /<canvas id="errors">/);
    assert.match(html, /<th>first message<\/th>/);
    assert.doesNotMatch(html, /charts drawn|render-status/);
  });

  test('a run where every answer was OK gets one line, not a chart of a lone OK bar', () => {
    const r = new Recorder(1000);
    r.start(0);
    for (let i = 0; i < 40; i++) r.record(5, { kind: 'ok' }, { items: 100, bytes: 1000 }, i * 100);
    r.finish(4000);
    const html = renderHtml(reportJson('remote-write', ['remote-write'], new Date(), [runJson('127.0.0.1:1', 'http://127.0.0.1:1/api/v1/write', 'samples', r, 'load-sent')]));
    assert.doesNotMatch(html, /<canvas id="errors">/);
    assert.match(html, /<p>Every answer OK: 127\.0\.0\.1:1 40\.<\/p>/);
  });
});

describe('bench HTML report in headless Chromium', { skip: chromium === undefined ? 'chromium not found on PATH (Debian package chromium: apt-get install -y chromium)' : false }, () => {
  let dir: string;
  let page: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-bench-html-'));
    page = join(dir, 'report.html');
    writeFileSync(page, renderHtml(sampleReport()));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('is one file that loads nothing from elsewhere', () => {
    const html = readFileSync(page, 'utf8');
    assert.doesNotMatch(html, /<script[^>]+src=/i);
    assert.doesNotMatch(html, /<link[^>]+href=/i);
    assert.match(html, /Chart\.js v4/);
    // The command's "</script>" is escaped, not ending a script early.
    assert.equal(html.match(/<\/script>/g)!.length, 3);
  });

  test('draws its three charts with no console message or script error', async () => {
    const r = await browse(join(dir, 'profile-dom'), pathToFileURL(page).href, ['--dump-dom']);
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    assert.match(r.stdout, /data-charts-rendered="3"/, 'the page says its charts were drawn');
    assert.doesNotMatch(r.stdout, /data-errors=/);
    assert.doesNotMatch(r.stdout, /charts drawn/, 'no debug footer');
    const console = r.stderr.split('\n').filter((l) => l.includes(':CONSOLE'));
    assert.deepEqual(console, [], 'no console output');
  });

  test('a screenshot shows the charts: their line and bar colours, not a blank page', async () => {
    const shot = join(dir, 'shot.png');
    const r = await browse(join(dir, 'profile-shot'), pathToFileURL(page).href, [`--screenshot=${shot}`]);
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    const img = decodePng(readFileSync(shot));
    assert.equal(img.width, 1200);
    // Palette: throughput and p50 blue, p90 red, p99 green (html.ts); nothing else on the page has them.
    const blue = countColour(img, [0x1f, 0x77, 0xb4]);
    const red = countColour(img, [0xd6, 0x27, 0x28]);
    const green = countColour(img, [0x2c, 0xa0, 0x2c]);
    assert.ok(blue > 5000, `blue pixels (lines and bars): ${blue}`);
    assert.ok(red > 200, `red pixels (p90 line): ${red}`);
    assert.ok(green > 200, `green pixels (p99 line): ${green}`);
    assert.deepEqual(r.stderr.split('\n').filter((l) => l.includes(':CONSOLE')), []);
  });
});
