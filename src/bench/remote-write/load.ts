/**
 * From the remote-write flags to an encoded load: the profile's catalogue,
 * the number of scrapes, the start time, then the encoding itself with a
 * progress line. Shared by `bench remote-write` and `bench compare`.
 */
import { performance } from 'node:perf_hooks';
import { UsageError } from '../../config/usage-error.js';
import type { Catalogue } from '../load/catalogue.js';
import { kubeCatalogue } from '../load/kube.js';
import { nodeExporterCatalogue } from '../load/node-exporter.js';
import { encodePlan, type EncodedPlan } from '../load/plan.js';
import { ProfileError, profileCatalogue, readProfile } from '../load/profile-file.js';
import { Progress } from '../run/progress.js';
import { fmt, mib } from '../run/format.js';
import type { ProfileChoice } from './options.js';

export interface LoadConfig {
  profile: ProfileChoice;
  series: number;
  scrapes: number;
  intervalMs: number;
  perRequest: number;
  churn: number;
  histogramShare: number;
  totalSamples: number;
  maxEncodedBytes: number;
  /** undefined: so that the last sample is about now. */
  start?: number;
}

export interface PreparedLoad {
  plan: EncodedPlan;
  profileName: string;
  start: number;
  encodeSeconds: number;
}

export function profileName(p: ProfileChoice): string {
  return p.kind === 'file' ? p.path : p.kind;
}

/** The catalogue of `series` series of the chosen profile; a bad profile file is a UsageError. */
export function catalogueOf(p: ProfileChoice, series: number): Catalogue {
  switch (p.kind) {
    case 'node-exporter': return nodeExporterCatalogue(series);
    case 'kube': return kubeCatalogue(series);
    case 'file':
      try {
        return profileCatalogue(readProfile(p.path), series, p.path);
      } catch (err) {
        if (err instanceof ProfileError) throw new UsageError(`--profile: ${err.message}`);
        throw err;
      }
  }
}

/**
 * The first scrape's time when none is given: whole intervals back from
 * now, so that the last scrape (plus a target's phase, under one interval)
 * ends about now, never in the future.
 */
export function defaultStart(scrapes: number, intervalMs: number, now = Date.now()): number {
  return Math.floor(now / intervalMs) * intervalMs - (scrapes + 1) * intervalMs;
}

export async function prepareLoad(c: LoadConfig, progress: Progress, signal?: AbortSignal): Promise<PreparedLoad> {
  const catalogue = catalogueOf(c.profile, c.series);
  const start = c.start ?? defaultStart(c.scrapes, c.intervalMs);
  const t0 = performance.now();
  const plan = await encodePlan({
    catalogue,
    start,
    intervalMs: c.intervalMs,
    scrapes: c.scrapes,
    perRequest: c.perRequest,
    churn: c.churn,
    histogramShare: c.histogramShare,
    maxSamples: c.totalSamples,
    maxBytes: c.maxEncodedBytes,
    onScrape: (s, bytes) => progress.update('encode', `scrape ${fmt(s + 1)}/${fmt(c.scrapes)}, ${mib(bytes)}`),
    ...(signal ? { signal } : {}),
  });
  const encodeSeconds = (performance.now() - t0) / 1000;
  progress.log(`load: ${profileName(c.profile)}, ${fmt(plan.series)} series (${fmt(catalogue.hosts)} targets) x ${fmt(plan.scrapes)} samples` +
    `${plan.seriesCreated > plan.series ? ` (${fmt(plan.seriesCreated)} series in all with churn)` : ''}` +
    ` = ${fmt(plan.totalSamples)} float samples${plan.totalHistograms > 0 ? ` + ${fmt(plan.totalHistograms)} native histograms` : ''}` +
    ` in ${fmt(plan.requests.length)} requests of up to ${fmt(c.perRequest)} series, ${mib(plan.compressedBytes)} compressed (${mib(plan.rawBytes)} raw),` +
    ` encoded in ${fmt(encodeSeconds, 1)} s`);
  return { plan, profileName: profileName(c.profile), start, encodeSeconds };
}
