/**
 * Collections after large buffers became garbage, on threads that would
 * otherwise keep them.
 *
 * V8 collects garbage when a thread allocates. A thread that drops large
 * buffers and then waits keeps that memory until it allocates again,
 * however long that is: after a burst of refused remote writes (12 MB
 * bodies that decoded to 250 MB) the process stayed 450 MB over its idle
 * size for more than a minute (issue 25). So:
 * - a pool worker collects at the end of a task that held more than the
 *   largest spare buffer ({@link collectNow}): a few milliseconds (its heap
 *   is a few MB) after a task that took far longer; and its young
 *   generation every few MiB of decoded bodies ({@link collectYoungAfter});
 * - the event loop, which drops such buffers when a client abandons a
 *   large body or the spares are full, collects once they stop coming for
 *   a second ({@link collectWhenQuiet}), then trims the C heap (what V8
 *   freed there stays resident in glibc's arenas otherwise); under steady
 *   load the drops keep coming and V8 collects as it allocates;
 * - once a worker has exited, the C heap is trimmed ({@link trimSoon}):
 *   its thread's arena keeps what the worker freed;
 * - in `strata serve`, once the process is idle (start-up done, the pool's
 *   last worker gone), the code Node and the workers ran leaves memory
 *   ({@link pageOutWhenIdle}).
 *
 * The `gc` function exists only with V8's --expose-gc. V8's flags belong to
 * the process; this one only adds `gc` to the global of contexts created
 * after it is set: the workers' (the pool sets it before starting them),
 * and a context made here for the event loop.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread } from 'node:worker_threads';
import { pageOutFileMappings, trimNativeHeap } from '../files/mmap.js';

/** What --expose-gc adds to a context's global. */
type Collector = () => void;

/** Dropped bytes that make the event loop collect once it is quiet: as much as the largest spare buffer. */
const QUIET_AFTER_BYTES = 16 << 20;
/** How long no large buffer must be dropped before the event loop collects. */
const QUIET_MS = 1_000;

let loopCollector: Collector | undefined;

/**
 * Gives the workers started after this call a `gc` function, and the event
 * loop one for {@link collectWhenQuiet}. Called by the pool before it
 * starts its workers.
 */
export function exposeCollector(): void {
  if (loopCollector !== undefined || !isMainThread) return;
  setFlagsFromString('--expose-gc');
  loopCollector = runInNewContext('gc') as Collector;
}

/**
 * In a worker, at the end of a task, once what it allocated is no longer
 * referenced: collects now. Not later: piscina's workers wait for their
 * next task blocked in Atomics.wait, so a timer set now would not run
 * before that task. Does nothing where `gc` was not exposed.
 */
export function collectNow(): void {
  (globalThis as { gc?: Collector }).gc?.();
}

/**
 * Bytes a worker lets go of before it collects its young generation: a
 * few decoded request bodies. Such a body (snappy's output, about 275 KiB
 * for 2,000 series) is malloc'd in the worker's C heap, and freed only
 * when V8 collects the Buffer holding it; the parser allocates so few
 * objects that V8's own scavenges came every hundred or so requests, and
 * the bodies waiting for them kept 36-44 MiB of each worker's arena
 * resident at 1M series x 6 (2026-11-29).
 */
const YOUNG_AFTER_BYTES = 4 << 20;
let youngDropped = 0;

/**
 * In a worker, at the end of a task that let go of `bytes` of buffers
 * (a decoded body): once 4 MiB or more were, collects the young
 * generation (a scavenge: its cost follows what survives, a few hundred
 * KB here, not the garbage). Does nothing where `gc` was not exposed.
 */
export function collectYoungAfter(bytes: number): void {
  youngDropped += bytes;
  if (youngDropped < YOUNG_AFTER_BYTES) return;
  youngDropped = 0;
  (globalThis as { gc?: (o: { type: 'minor' }) => void }).gc?.({ type: 'minor' });
}

let dropped = 0;
let timer: NodeJS.Timeout | undefined;

/**
 * On the event loop: `bytes` of buffers were dropped. Once 16 MiB or more
 * were, collects after a second without further drops. Does nothing
 * before {@link exposeCollector} or in a worker.
 */
export function collectWhenQuiet(bytes: number): void {
  if (loopCollector === undefined || !isMainThread) return;
  dropped += bytes;
  if (dropped < QUIET_AFTER_BYTES) return;
  clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    dropped = 0;
    loopCollector?.();
    trimNativeHeap();
  }, QUIET_MS);
  timer.unref();
}

let trimTimer: NodeJS.Timeout | undefined;

/** Trims the C heap (trimNativeHeap) a moment from now, once for calls that come together. */
export function trimSoon(): void {
  if (trimTimer !== undefined) return;
  trimTimer = setTimeout(() => {
    trimTimer = undefined;
    trimNativeHeap();
  }, 200);
  trimTimer.unref();
}

/**
 * On the event loop, after work that let go of much memory at once (the
 * head's oldest range written as a block and dropped, blocks compacted):
 * collects and trims the C heap once the loop has been quiet for a second.
 */
export function collectSoon(): void {
  collectWhenQuiet(QUIET_AFTER_BYTES);
}

/** How long after the process became idle its read-only file pages are paged out. */
const PAGE_OUT_AFTER_MS = 1_000;
let pageOutOn = false;
let pageOutTimer: NodeJS.Timeout | undefined;

/**
 * Turns on paging out the process' read-only file pages whenever it
 * becomes idle ({@link pageOutSoon}), and does it once now that start-up
 * is done: about 40 MiB of the node binary's code that starting Node and
 * each worker touched stay resident otherwise, for good. `strata serve`
 * turns it on; a program that embeds Strata keeps its own pages.
 */
export function pageOutWhenIdle(): void {
  if (!isMainThread) return;
  pageOutOn = true;
  pageOutSoon();
}

/**
 * The process may be idle now (the pool's last worker exited): a second
 * from now, if `stillIdle` says so and {@link pageOutWhenIdle} is on, its
 * read-only file pages are paged out (pageOutFileMappings).
 */
export function pageOutSoon(stillIdle: () => boolean = () => true): void {
  if (!pageOutOn || pageOutTimer !== undefined) return;
  pageOutTimer = setTimeout(() => {
    pageOutTimer = undefined;
    if (stillIdle()) pageOutFileMappings();
  }, PAGE_OUT_AFTER_MS);
  pageOutTimer.unref();
}
