/**
 * Issue 14's and 29's targets, side by side: Strata against
 * VictoriaMetrics and Prometheus for samples/s, server CPU per sample, RSS
 * (idle, peak, settled after the load), readiness latency and event-loop
 * delay under the load, as ratios, each target marked met or not met. A figure a run lacks (a server left out, a server
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
  idleRssBytes: number;
  settledRssBytes: number | undefined;
  responsiveness: Responsiveness | undefined;
}

/** Issue 14's and 29's bounds. */
export const TARGETS = {
  /** Strata's samples/s at least this times VictoriaMetrics'. */
  samplesVsVm: 1.2,
  /** Strata's CPU per sample at most this times VictoriaMetrics'. */
  cpuVsVm: 1,
  /** Strata's peak RSS, and its RSS once the load stopped and the CPU settled, at most this times VictoriaMetrics' (issue 29). */
  rssVsVm: 1,
  /** Strata's idle RSS at most this (issue 29). */
  idleRssBytes: 80 * 2 ** 20,
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
export function targetsTable(peers: PeerFigures[]): string {
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

  const rows: string[][] = [
    ['samples/s', ...cells((p) => fmt(p.samplesPerSecond)), ...vs((p) => p.samplesPerSecond),
      `Strata >= ${TARGETS.samplesVsVm}x VictoriaMetrics`, verdict(both ? s.samplesPerSecond >= TARGETS.samplesVsVm * vm.samplesPerSecond : undefined)],
    ['server CPU µs/sample', ...cells((p) => fmt(p.cpuMicrosecondsPerSample, 2)), ...vs((p) => p.cpuMicrosecondsPerSample),
      'Strata <= VictoriaMetrics', verdict(both ? s.cpuMicrosecondsPerSample <= TARGETS.cpuVsVm * vm.cpuMicrosecondsPerSample : undefined)],
    ['idle RSS', ...cells((p) => mib(p.idleRssBytes)), ...vs((p) => p.idleRssBytes),
      `Strata <= ${mib(TARGETS.idleRssBytes)}`, verdict(s === undefined ? undefined : s.idleRssBytes <= TARGETS.idleRssBytes)],
    ['peak RSS', ...cells((p) => mib(p.peakRssBytes)), ...vs((p) => p.peakRssBytes),
      'Strata <= VictoriaMetrics', verdict(both ? s.peakRssBytes <= TARGETS.rssVsVm * vm.peakRssBytes : undefined)],
    ['RSS settled after the load', ...cells((p) => (p.settledRssBytes === undefined ? 'n/a' : mib(p.settledRssBytes))), ...vs((p) => p.settledRssBytes),
      'Strata <= VictoriaMetrics', verdict(both && s.settledRssBytes !== undefined && vm.settledRssBytes !== undefined ? s.settledRssBytes <= TARGETS.rssVsVm * vm.settledRssBytes : undefined)],
    ['readiness p99 / max ms', ...cells(readyCell), ...vs(readyP99),
      `Strata: every answer within ${TARGETS.readyMs} ms`, verdict(sReady === null || sReady === undefined || sReady.probes === 0 ? undefined : sReady.failures === 0 && (sReady.latencyMs.max ?? Infinity) <= TARGETS.readyMs)],
    ['event-loop delay p99 / max ms', ...cells((p) => { const l = p.responsiveness?.serverEventLoop; return l === null || l === undefined ? 'n/a' : pair(l.p99Ms, l.maxMs); }), ...vs(loopP99),
      `Strata: p99 under ${TARGETS.loopP99Ms} ms`, verdict(sLoop === null || sLoop === undefined || sLoop.p99Ms === null ? undefined : sLoop.p99Ms < TARGETS.loopP99Ms)],
  ];
  const header = ['figure', 'Strata', 'VictoriaMetrics', 'Prometheus', 'Strata/VictoriaMetrics', 'Strata/Prometheus', 'target (issues 14, 29)', 'result'];
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
