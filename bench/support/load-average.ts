/**
 * The machine's load average, and a bounded wait for it to come down
 * before a timed run (other work may share the cores).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** The 1, 5 and 15 minute load averages as /proc/loadavg prints them. */
export function loadText(): string {
  return readFileSync('/proc/loadavg', 'utf8').trim().split(' ').slice(0, 3).join(' ');
}

/**
 * Waits until the 1-minute load average is at most `max`, polling every
 * `pollS` seconds, for at most `limitS` seconds (0: no wait). Resolves
 * with the seconds waited and whether the load came down.
 */
export async function waitForLowLoad(max: number, limitS: number, pollS = 10, onWait?: (load: number) => void): Promise<{ waitedS: number; low: boolean }> {
  const t0 = Date.now();
  for (let i = 0; i < 10_000; i++) {
    const load = loadavg()[0]!;
    if (load <= max) return { waitedS: (Date.now() - t0) / 1000, low: true };
    if (Date.now() - t0 + pollS * 1000 > limitS * 1000) break;
    onWait?.(load);
    await sleep(pollS * 1000);
  }
  return { waitedS: (Date.now() - t0) / 1000, low: false };
}
