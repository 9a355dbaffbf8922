/**
 * Where a `strata bench remote-write` load begins when --start is not
 * given: so that its last sample is about now, or, when an earlier run on
 * this machine sent samples to the same --url later than that, just after
 * that run's last sample. A receiver refuses a sample older than its
 * series' newest (out of order), so a second run that again ended "about
 * now" would be refused on every request.
 *
 * The last sample time of each --url is kept in one small JSON file in the
 * OS temporary directory (TMPDIR); a missing or unreadable file means no
 * earlier run.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultStart } from './load.js';

/** Most URLs remembered: the oldest entries go first. */
const MAX_ENTRIES = 100;

function stateFile(): string {
  return join(tmpdir(), 'strata-bench-last-samples.json');
}

function readAll(): Record<string, number> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(stateFile(), 'utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, number] => Number.isSafeInteger(e[1])));
  } catch {
    return {}; // no earlier run (or a file this version cannot read): start as if none
  }
}

/** The newest sample time (ms) an earlier run sent to `url`, if any. */
export function lastSampleTime(url: URL): number | undefined {
  return readAll()[url.href];
}

/** Remembers `t` (ms) as the newest sample time sent to `url`, unless a later one is remembered. */
export function rememberLastSampleTime(url: URL, t: number): void {
  const all = readAll();
  if ((all[url.href] ?? -Infinity) >= t) return;
  delete all[url.href];
  all[url.href] = t;
  const kept = Object.entries(all).slice(-MAX_ENTRIES);
  const file = stateFile();
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(Object.fromEntries(kept)));
  renameSync(tmp, file); // whole or not at all, should two runs end together
}

/**
 * The first scrape's time for a load of `scrapes` scrapes sent to `url`:
 * {@link defaultStart}, or just after the newest sample an earlier run sent
 * there if that is later. `after` says which.
 */
export function startFor(url: URL, scrapes: number, intervalMs: number, now = Date.now()): { start: number; after?: number } {
  const start = defaultStart(scrapes, intervalMs, now);
  const last = lastSampleTime(url);
  // A series' samples sit at start + k * interval + its phase: starting past
  // the newest sample puts every series' first sample after its last one.
  if (last === undefined || last < start) return { start };
  return { start: last + 1, after: last };
}
