/**
 * The HTML report (--report FILE.html): one self-contained page, no
 * network: Chart.js' UMD bundle and the JSON report are inlined. Charts:
 * throughput over time, latency percentiles over time, and the answers by
 * code; a table of the totals. Once the charts are drawn the page sets
 * `data-charts-rendered` on <html> to the number of charts; a script error
 * is written to `data-errors` (the browser test reads both).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { loadOptionalSync } from '../../errors/optional-package.js';
import type { BenchReport } from './schema.js';
import { fmt, mib, ms } from '../run/format.js';

let chartJs: string | undefined;

/**
 * Chart.js' UMD build, from the installed package (its exports map hides
 * dist/, so go by the main file's folder). Throws a
 * MissingOptionalPackageError when chart.js is not installed: call it
 * before a run that will write --report, so that this shows at once.
 */
export function chartBundle(): string {
  if (chartJs === undefined) {
    // An optional peer dependency: only --report needs it.
    const main = loadOptionalSync('strata bench --report', ['chart.js'], () => createRequire(import.meta.url).resolve('chart.js'));
    chartJs = readFileSync(join(dirname(main), 'chart.umd.min.js'), 'utf8');
  }
  return chartJs;
}

/** Text safe inside <script>: no "</script" or "<!--" can end or change it. */
function inScript(text: string): string {
  return text.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** JSON safe inside <script>: every "<" written as \u003c (valid in JSON strings, where alone it can occur). */
function jsonInScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function summaryRows(report: BenchReport): string {
  return report.runs.map((r) => {
    const errors = r.answers.classes['4xx'] + r.answers.classes['429'] + r.answers.classes['5xx'] + r.answers.classes.network + r.answers.classes.grpc;
    return `<tr><td>${escapeHtml(r.name)}</td><td>${escapeHtml(r.stoppedBy)}</td><td>${fmt(r.seconds, 1)}</td><td>${fmt(r.totals.requests)}</td>` +
      `<td>${fmt(r.totals.items)} ${r.unit}</td><td>${fmt(r.rates.itemsPerSecond)}</td><td>${mib(r.totals.bytes)}</td>` +
      `<td>${ms(r.latencyMs.p50 ?? NaN)} / ${ms(r.latencyMs.p90 ?? NaN)} / ${ms(r.latencyMs.p99 ?? NaN)} / ${ms(r.latencyMs.max ?? NaN)}</td>` +
      `<td>${fmt(r.answers.ok)}</td><td>${fmt(errors)}</td></tr>`;
  }).join('\n');
}

/** Readiness and event-loop delay during each run's load; empty when no run has them. */
function responsivenessTable(report: BenchReport): string {
  const cell = (x: number | null | undefined): string => ms(x ?? NaN);
  const rows = report.runs.flatMap((r) => {
    const x = r.responsiveness;
    if (x === undefined) return [];
    const ready = x.readiness;
    const loop = x.serverEventLoop;
    return [`<tr><td>${escapeHtml(r.name)}</td>` +
      (ready === null ? '<td>not probed</td><td></td><td></td>' : `<td>${fmt(ready.probes)}</td><td>${fmt(ready.failures)}</td><td>${cell(ready.latencyMs.p50)} / ${cell(ready.latencyMs.p99)} / ${cell(ready.latencyMs.max)}</td>`) +
      (loop === null ? '<td>n/a</td>' : `<td>${cell(loop.p50Ms)} / ${cell(loop.p99Ms)} / ${cell(loop.maxMs)}</td>`) +
      (x.probeEventLoop === null ? '<td>n/a</td></tr>' : `<td>${cell(x.probeEventLoop.p99Ms)} / ${cell(x.probeEventLoop.maxMs)}</td></tr>`)];
  });
  if (rows.length === 0) return '';
  const notes = report.runs.flatMap((r) => (r.responsiveness?.notes ?? []).map((n) => `<p class="meta">${escapeHtml(r.name)}: ${escapeHtml(n)}</p>`));
  return `<h2>Responsiveness during the load</h2>
<table>
<tr><th>run</th><th>readiness probes</th><th>failed</th><th>readiness ms p50 / p99 / max</th><th>server event-loop delay ms p50 / p99 / max</th><th>probe thread event-loop delay ms p99 / max</th></tr>
${rows.join('\n')}
</table>
<p class="meta">Readiness: a GET every 100 ms on its own connection, from a thread of its own. Event-loop delay: prom-client's nodejs_eventloop_lag_* gauges, intervals of a 10 ms timer (about 10 ms when idle).</p>
${notes.join('\n')}`;
}

function exampleRows(report: BenchReport): string {
  const rows: string[] = [];
  for (const r of report.runs) {
    for (const [code, text] of Object.entries(r.answers.examples)) {
      rows.push(`<tr><td>${escapeHtml(r.name)}</td><td>${escapeHtml(code)}</td><td>${fmt(r.answers.byCode[code] ?? 0)}</td><td><code>${escapeHtml(text)}</code></td></tr>`);
    }
  }
  return rows.length === 0 ? '' : `<table><tr><th>run</th><th>code</th><th>count</th><th>first message</th></tr>${rows.join('\n')}</table>`;
}

/** Whether any run had an answer other than OK (an error or a request aborted at the end). */
function anyFailed(report: BenchReport): boolean {
  return report.runs.some((r) => Object.values(r.answers.classes).some((n) => n > 0));
}

/** The answers chart and the first message of each error code; one line when every answer was OK. */
function answersPart(report: BenchReport): string {
  if (!anyFailed(report)) return `<h2>Answers</h2>\n<p>Every answer OK: ${report.runs.map((r) => `${escapeHtml(r.name)} ${fmt(r.answers.ok)}`).join(', ')}.</p>`;
  return `<h2>Answers by code</h2>\n<div class="chart"><canvas id="errors"></canvas></div>\n${exampleRows(report)}`;
}

/** The page's own script: draws the charts from the inlined report. */
const PAGE_SCRIPT = String.raw`
(function () {
  var root = document.documentElement;
  var errors = [];
  window.addEventListener('error', function (e) { errors.push(String(e.message)); root.dataset.errors = errors.join(' | '); });
  var report = JSON.parse(document.getElementById('report-data').textContent);
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  var unit = report.runs.length > 0 ? report.runs[0].unit : 'samples';
  var charts = 0;
  function line(id, datasets, yTitle, y2Title) {
    var scales = {
      x: { type: 'linear', beginAtZero: true, title: { display: true, text: 'seconds since start' } },
      y: { beginAtZero: true, title: { display: true, text: yTitle } }
    };
    if (y2Title) scales.y2 = { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false }, title: { display: true, text: y2Title } };
    new Chart(document.getElementById(id), {
      type: 'line',
      data: { datasets: datasets },
      options: {
        parsing: false,
        normalized: true,
        scales: scales,
        plugins: { legend: { position: 'bottom' } }
      }
    });
    charts++;
  }
  var throughput = [];
  var latency = [];
  report.runs.forEach(function (run, k) {
    var width = run.timelineBucketSeconds || 1;
    var color = palette[k % palette.length];
    // Rates over each bucket's real width: the last bucket is usually partial;
    // one shorter than a quarter bucket is left out of the rates (too noisy).
    var prev = 0;
    var rates = [];
    run.timeline.forEach(function (p) {
      var w = p.t - prev;
      prev = p.t;
      if (w >= width / 4) rates.push({ x: p.t, items: p.items / w, requests: p.requests / w });
    });
    var radius = run.timeline.length < 30 ? 3 : 0;
    throughput.push({ label: run.name + ' ' + run.unit + '/s', borderColor: color, backgroundColor: color, borderWidth: 2, pointRadius: radius,
      data: rates.map(function (p) { return { x: p.x, y: p.items }; }) });
    if (report.runs.length === 1) {
      throughput.push({ label: 'requests/s (right axis)', borderColor: '#888', backgroundColor: '#888', borderDash: [4, 3], borderWidth: 1, pointRadius: radius, yAxisID: 'y2',
        data: rates.map(function (p) { return { x: p.x, y: p.requests }; }) });
    }
    [['p50', []], ['p90', [6, 3]], ['p99', [2, 2]]].forEach(function (q, j) {
      var c = report.runs.length > 1 ? color : palette[j];
      latency.push({ label: (report.runs.length > 1 ? run.name + ' ' : '') + q[0], borderColor: c, backgroundColor: c, borderDash: q[1], borderWidth: 2, pointRadius: radius,
        data: run.timeline.map(function (p) { return { x: p.t, y: p[q[0]] }; }) });
    });
  });
  line('throughput', throughput, unit + ' per second', report.runs.length === 1 ? 'requests per second' : undefined);
  line('latency', latency, 'latency (ms)');
  // The answers chart is on the page only when some answer failed: a lone "OK" bar says nothing.
  var errorsCanvas = document.getElementById('errors');
  if (errorsCanvas === null) {
    root.dataset.chartsRendered = String(charts);
    return;
  }
  var codes = ['OK'];
  report.runs.forEach(function (run) { Object.keys(run.answers.byCode).forEach(function (c) { if (codes.indexOf(c) < 0) codes.push(c); }); });
  if (report.runs.some(function (run) { return run.answers.classes.aborted > 0; })) codes.push('aborted');
  new Chart(errorsCanvas, {
    type: 'bar',
    data: {
      labels: codes,
      datasets: report.runs.map(function (run, k) {
        return { label: run.name, backgroundColor: palette[k % palette.length],
          data: codes.map(function (c) { return c === 'OK' ? run.answers.ok : c === 'aborted' ? run.answers.classes.aborted : (run.answers.byCode[c] || 0); }) };
      })
    },
    options: { scales: { y: { beginAtZero: true, title: { display: true, text: 'answers' } } }, plugins: { legend: { position: 'bottom' } } }
  });
  charts++;
  root.dataset.chartsRendered = String(charts);
})();
`;

/** The whole page for `report`. */
export function renderHtml(report: BenchReport): string {
  const title = `strata bench ${report.mode}: ${report.runs.map((r) => r.name).join(', ')}`;
  const machine = report.machine;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
  h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
  table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 4px 8px; text-align: right; }
  td:first-child, th:first-child { text-align: left; } code { white-space: pre-wrap; text-align: left; display: block; }
  .chart { position: relative; height: 320px; max-width: 1100px; }
  .meta { color: #555; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p class="meta">Strata ${escapeHtml(report.strataVersion)}, started ${escapeHtml(report.startedAt)}; ${machine.cores} cores (${escapeHtml(machine.cpu)}), Node ${escapeHtml(machine.node)}, load average ${machine.loadAverage.join(' ')}.<br>
<code>strata bench ${escapeHtml(report.command.join(' '))}</code></p>
${report.notes.map((n) => `<p class="meta">${escapeHtml(n)}</p>`).join('\n')}
<table>
<tr><th>run</th><th>stopped by</th><th>seconds</th><th>requests</th><th>done</th><th>per second</th><th>bytes</th><th>latency ms p50 / p90 / p99 / max</th><th>ok</th><th>errors</th></tr>
${summaryRows(report)}
</table>
${responsivenessTable(report)}
<h2>Throughput over time</h2>
<div class="chart"><canvas id="throughput"></canvas></div>
<h2>Latency percentiles over time</h2>
<div class="chart"><canvas id="latency"></canvas></div>
${answersPart(report)}
<script>${inScript(chartBundle())}</script>
<script type="application/json" id="report-data">${jsonInScript(report)}</script>
<script>${inScript(PAGE_SCRIPT)}</script>
</body>
</html>
`;
}
