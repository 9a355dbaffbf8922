/**
 * Issue 14's targets, side by side: Strata against VictoriaMetrics and
 * Prometheus for samples/s, server CPU per sample, peak RSS, readiness
 * latency and event-loop delay under the load, as ratios, each target
 * marked met or not met. A figure a run lacks (a server left out, a server
 * without the metric) is "n/a", and a target it decides is "not measured".
 */
import { fmt, mib } from '../run/format.js';
import type { Responsiveness } from '../report/schema.js';
import type { PeerName } from './peers.js';

/** One server's figures, as the table reads them. */
export interface PeerFigures {
  name: PeerName;
  samplesPerSecond: number;
  cpuMicrosecondsPerSample: number;
  peakRssBytes: number;
  responsiveness: Responsiveness | undefined;
}

/** The shape of the load (the peak RSS target depends on it). */
export interface LoadShape {
  series: number;
  samplesPerSeries: number;
}

/** Issue 14's bounds. */
export const TARGETS = {
  /** Strata's samples/s at least this times VictoriaMetrics'. */
  samplesVsVm: 1.2,
  /** Strata's CPU per sample at most this times VictoriaMetrics'. */
  cpuVsVm: 1,
  /** Strata's peak RSS at most this times VictoriaMetrics'. */
  rssVsVm: 1.2,
  /** ... and at most VictoriaMetrics' at this load (many series, few samples each). */
  rssEqualLoad: { series: 1_000_000, samplesPerSeries: 6 },
  /** Every readiness answer within this (ms), none failed. */
  readyMs: 50,
  /** Event-loop delay p99 under this (ms). */
  loopP99Ms: 20,
} as const;

const ORDER: PeerName[] = ['strata', 'victoriametrics', 'prometheus'];

const ratio = (a: number | null | undefined, b: number | null | undefined): string =>
  a === null || a === undefined || b === null || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`;

const verdict = (ok: boolean | undefined): string => (ok === undefined ? 'not measured' : ok ? '**met**' : '**not met**');

/** `p99 / max` in ms, or n/a. */
function pair(p99: number | null | undefined, max: number | null | undefined): string {
  return p99 === null || p99 === undefined ? 'n/a' : `${fmt(p99, 1)} / ${fmt(max ?? NaN, 1)}`;
}

/** The table, in markdown; ratios are Strata's figure over the peer's (readiness and event loop: of the p99). */
export function targetsTable(peers: PeerFigures[], load: LoadShape): string {
  const by = (n: PeerName) => peers.find((p) => p.name === n);
  const s = by('strata');
  const vm = by('victoriametrics');
  const prom = by('prometheus');
  const cells = (f: (p: PeerFigures) => string): string[] => ORDER.map((n) => { const p = by(n); return p === undefined ? 'not run' : f(p); });
  const vs = (pick: (p: PeerFigures) => number | null | undefined): string[] => [ratio(s && pick(s), vm && pick(vm)), ratio(s && pick(s), prom && pick(prom))];
  const both = s !== undefined && vm !== undefined;

  const readyP99 = (p: PeerFigures) => p.responsiveness?.readiness?.latencyMs.p99;
  const loopP99 = (p: PeerFigures) => p.responsiveness?.serverEventLoop?.p99Ms;
  const readyCell = (p: PeerFigures): string => {
    const r = p.responsiveness?.readiness;
    if (r === null || r === undefined) return 'n/a';
    return `${pair(r.latencyMs.p99, r.latencyMs.max)}${r.failures > 0 ? `, ${fmt(r.failures)} of ${fmt(r.probes)} failed` : ''}`;
  };
  const sReady = s?.responsiveness?.readiness;
  const sLoop = s?.responsiveness?.serverEventLoop;
  const atEqualLoad = load.series === TARGETS.rssEqualLoad.series && load.samplesPerSeries === TARGETS.rssEqualLoad.samplesPerSeries;

  const rows: string[][] = [
    ['samples/s', ...cells((p) => fmt(p.samplesPerSecond)), ...vs((p) => p.samplesPerSecond),
      `Strata >= ${TARGETS.samplesVsVm}x VictoriaMetrics`, verdict(both ? s.samplesPerSecond >= TARGETS.samplesVsVm * vm.samplesPerSecond : undefined)],
    ['server CPU µs/sample', ...cells((p) => fmt(p.cpuMicrosecondsPerSample, 2)), ...vs((p) => p.cpuMicrosecondsPerSample),
      'Strata <= VictoriaMetrics', verdict(both ? s.cpuMicrosecondsPerSample <= TARGETS.cpuVsVm * vm.cpuMicrosecondsPerSample : undefined)],
    ['peak RSS', ...cells((p) => mib(p.peakRssBytes)), ...vs((p) => p.peakRssBytes),
      `Strata <= ${TARGETS.rssVsVm}x VictoriaMetrics`, verdict(both ? s.peakRssBytes <= TARGETS.rssVsVm * vm.peakRssBytes : undefined)],
    ['peak RSS at issue 14\'s many-series load', '', '', '', '', '', `at --series ${TARGETS.rssEqualLoad.series} --samples-per-series ${TARGETS.rssEqualLoad.samplesPerSeries}: Strata <= VictoriaMetrics`,
      atEqualLoad ? verdict(both ? s.peakRssBytes <= vm.peakRssBytes : undefined) : `not this load (${fmt(load.series)} series x ${fmt(load.samplesPerSeries)})`],
    ['readiness p99 / max ms', ...cells(readyCell), ...vs(readyP99),
      `Strata: every answer within ${TARGETS.readyMs} ms`, verdict(sReady === null || sReady === undefined || sReady.probes === 0 ? undefined : sReady.failures === 0 && (sReady.latencyMs.max ?? Infinity) <= TARGETS.readyMs)],
    ['event-loop delay p99 / max ms', ...cells((p) => { const l = p.responsiveness?.serverEventLoop; return l === null || l === undefined ? 'n/a' : pair(l.p99Ms, l.maxMs); }), ...vs(loopP99),
      `Strata: p99 under ${TARGETS.loopP99Ms} ms`, verdict(sLoop === null || sLoop === undefined || sLoop.p99Ms === null ? undefined : sLoop.p99Ms < TARGETS.loopP99Ms)],
  ];
  const header = ['figure', 'Strata', 'VictoriaMetrics', 'Prometheus', 'Strata/VictoriaMetrics', 'Strata/Prometheus', 'target (issue 14)', 'result'];
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
