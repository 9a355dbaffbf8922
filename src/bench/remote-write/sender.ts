/**
 * Sends an encoded plan (plan.ts) with `concurrency` requests in flight on
 * keep-alive connections, at a target rate or as fast as possible, until
 * the plan is sent or the run is stopped (duration, Ctrl-C).
 *
 * Order: request i is sent only after request i - groups (the same series,
 * one scrape earlier) was answered, so each series' samples arrive in time
 * order; with concurrency at most the requests of a scrape, that almost
 * never waits. Rate: request i is due when the samples before it, at the
 * target rate, have had their time. 429: every worker holds off until
 * Retry-After has passed (1 s without one; never past the end of the run),
 * then the request is sent again, at most `retries` times; over gRPC,
 * RESOURCE_EXHAUSTED (Thanos Receive's answer to a write over its limits)
 * is 429's counterpart. Anything else is counted and not resent.
 *
 * Transport: http:// and https:// POST the plan's snappy bodies (or,
 * with `otlp`, the same load as OTLP/HTTP bodies);
 * grpc:// and grpcs:// call thanos.WriteableStore/RemoteWrite with the
 * bodies of `grpcBodies`, `concurrency` calls in flight on one HTTP/2
 * connection.
 *
 * Bounded: the loop ends after the plan's requests; each request has a
 * timeout; after a stop, requests in flight get `drainMs` to finish, then
 * their connections are closed and they count as aborted.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EncodedPlan } from '../load/plan.js';
import type { Recorder } from '../run/recorder.js';
import type { RunStop } from '../run/stop.js';
import { GrpcWriteConnection } from './grpc-call.js';
import type { HttpClientTls } from './options.js';
import { otlpHeaders, type OtlpCompression } from './otlp-bodies.js';
import { makeAgent, post, REMOTE_WRITE_HEADERS, type PostResult } from './post.js';

export interface SendOptions {
  url: URL;
  headers: Record<string, string>;
  concurrency: number;
  /** Samples a second to aim at; 0: as fast as possible. */
  rate: number;
  timeoutMs: number;
  retries: number;
  recorder: Recorder;
  stop: RunStop;
  /** How long requests in flight may take to finish after a stop (ms). */
  drainMs?: number;
  /** https and grpcs: CA, client certificate, server name (the --tls-* flags). */
  tls?: HttpClientTls;
  /** grpc:// and grpcs:// (required then): the plan's requests as call bodies (grpc-frames.ts), made before the clock starts. */
  grpcBodies?: Buffer[];
  /** --format otlp: the plan's requests as OTLP/HTTP bodies (otlp-bodies.ts) and their compression, made before the clock starts. */
  otlp?: { bodies: Buffer[]; compression: OtlpCompression };
}

/** The end requests go out of: one plan request sent (never rejects), its size on the wire, and closing. */
interface Target {
  send(i: number, timeoutMs: number): Promise<PostResult>;
  bytes(i: number): number;
  destroy(): void;
}

/** Whether `url` names a gRPC RemoteWrite target rather than an HTTP remote-write endpoint. */
export function isGrpcUrl(url: URL): boolean {
  return url.protocol === 'grpc:' || url.protocol === 'grpcs:';
}

function targetFor(plan: EncodedPlan, o: SendOptions): Target {
  if (isGrpcUrl(o.url)) {
    const bodies = o.grpcBodies;
    if (bodies === undefined || bodies.length !== plan.requests.length) throw new Error(`sendPlan: a gRPC target needs the plan's ${plan.requests.length} requests as gRPC bodies`);
    const metadata: Record<string, string> = {};
    for (const [name, value] of Object.entries(o.headers)) metadata[name.toLowerCase()] = value;
    const connection = new GrpcWriteConnection(o.url, o.tls, metadata);
    return { send: (i, timeoutMs) => connection.write(bodies[i]!, timeoutMs), bytes: (i) => bodies[i]!.length, destroy: () => connection.destroy() };
  }
  const agent = makeAgent(o.url, o.concurrency, o.tls);
  const bodies = o.otlp?.bodies ?? plan.requests;
  if (bodies.length !== plan.requests.length) throw new Error(`sendPlan: --format otlp needs the plan's ${plan.requests.length} requests as OTLP bodies`);
  const headers = { ...(o.otlp === undefined ? REMOTE_WRITE_HEADERS : otlpHeaders(o.otlp.compression)), ...o.headers };
  return { send: (i, timeoutMs) => post(agent, o.url, headers, bodies[i]!, timeoutMs), bytes: (i) => bodies[i]!.length, destroy: () => agent.destroy() };
}

/** 429 over HTTP, RESOURCE_EXHAUSTED over gRPC: the receiver asks to be sent the request again later. */
function asksForRetry(outcome: PostResult['outcome']): boolean {
  return (outcome.kind === 'http' && outcome.status === 429) || (outcome.kind === 'grpc' && outcome.code === 'RESOURCE_EXHAUSTED');
}

export interface SendResult {
  /** Requests taken from the plan and sent at least once. */
  sent: number;
  /** Requests whose last attempt was answered 2xx. */
  written: number;
  /** Samples (float + histogram) in the requests answered 2xx. */
  samplesWritten: number;
  histogramsWritten: number;
}

/** Wait without a Retry-After header. */
const DEFAULT_BACKOFF_MS = 1000;
/** After a stop, requests in flight get this long to finish. */
const DEFAULT_DRAIN_MS = 5000;

/** Sleeps `ms`, or less if `signal` aborts first; never rejects. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    // aborted: the run is stopping
  }
}

export async function sendPlan(plan: EncodedPlan, o: SendOptions): Promise<SendResult> {
  const { recorder, stop } = o;
  const total = plan.requests.length;
  const target = targetFor(plan, o);
  const itemsOf = (i: number): number => plan.samples[i]! + plan.histograms[i]!;
  // When request i is due at the target rate (ms after the start).
  const dueMs = new Float64Array(total);
  if (o.rate > 0) {
    let before = 0;
    for (let i = 0; i < total; i++) {
      dueMs[i] = (before / o.rate) * 1000;
      before += itemsOf(i);
    }
  }
  const groupTail: Array<Promise<void>> = new Array(plan.groups).fill(Promise.resolve());
  let next = 0;
  let answered = 0;
  let pausedUntil = 0;
  let closing = false;
  const result: SendResult = { sent: 0, written: 0, samplesWritten: 0, histogramsWritten: 0 };
  const t0 = performance.now();
  recorder.start(t0);

  const sendOne = async (i: number): Promise<void> => {
    const bytes = target.bytes(i);
    for (let attempt = 0; attempt <= o.retries; attempt++) {
      const wait = pausedUntil - performance.now();
      if (wait > 0) await pause(wait, stop.signal);
      if (stop.stopped && attempt > 0) return;
      if (attempt > 0) recorder.answers.retries++;
      const r0 = performance.now();
      const { outcome, retryAfterMs } = await target.send(i, o.timeoutMs);
      const now = performance.now();
      if (closing && outcome.kind === 'network') {
        recorder.record(now - r0, { kind: 'aborted' }, {}, now);
        return;
      }
      const ok = outcome.kind === 'ok';
      recorder.record(now - r0, outcome, ok ? { items: itemsOf(i), histograms: plan.histograms[i]!, bytes } : { bytes }, now);
      if (ok) {
        result.written++;
        result.samplesWritten += itemsOf(i);
        result.histogramsWritten += plan.histograms[i]!;
        return;
      }
      if (!asksForRetry(outcome)) return;
      pausedUntil = Math.max(pausedUntil, now + (retryAfterMs ?? DEFAULT_BACKOFF_MS));
    }
  };

  const worker = async (): Promise<void> => {
    // Bounded by the plan: each turn takes one request.
    while (next < total && !stop.stopped) {
      const i = next++;
      const g = i % plan.groups;
      const previous = groupTail[g]!;
      let release!: () => void;
      groupTail[g] = new Promise<void>((r) => { release = r; });
      try {
        await previous;
        if (stop.stopped) return;
        if (o.rate > 0) await pause(t0 + dueMs[i]! - performance.now(), stop.signal);
        if (stop.stopped) return;
        result.sent++;
        await sendOne(i);
        answered++;
      } finally {
        release();
      }
    }
  };

  const workers = Array.from({ length: Math.min(o.concurrency, total) }, worker);
  const all = Promise.all(workers).then(() => {
    if (answered === total) stop.stop('load-sent');
  });
  // After a stop, give requests in flight drainMs, then close their connections.
  const drained = new Promise<void>((resolve) => {
    const onStop = (): void => {
      const timer = setTimeout(() => {
        closing = true;
        target.destroy();
        resolve();
      }, o.drainMs ?? DEFAULT_DRAIN_MS);
      void all.then(() => {
        clearTimeout(timer);
        resolve();
      });
    };
    if (stop.signal.aborted) onStop();
    else stop.signal.addEventListener('abort', onStop, { once: true });
    void all.then(() => resolve());
  });
  await drained;
  await all;
  recorder.finish();
  target.destroy();
  return result;
}
