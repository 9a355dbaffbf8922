import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

/** Time spent with no HTTP request of this process in flight, with one, and with two or more (ms). */
export interface WireTime {
  idleMs: number;
  oneMs: number;
  moreMs: number;
}

/**
 * Watches this process' HTTP client requests (node:http's diagnostics
 * channels: a request counts from its start until its answer arrives) and
 * adds up how long the wire was idle, busy with one request, or with more,
 * between start() and stop(). Shows where an upload waits on itself (reading,
 * hashing, CreateMultipartUpload) rather than on the store.
 */
export function watchWire(): { start(): void; stop(): WireTime } {
  const open = new WeakSet<object>();
  const t: WireTime = { idleMs: 0, oneMs: 0, moreMs: 0 };
  let n = 0;
  let last = 0;
  let on = false;
  const tick = (): void => {
    const now = performance.now();
    if (on) {
      if (n === 0) t.idleMs += now - last;
      else if (n === 1) t.oneMs += now - last;
      else t.moreMs += now - last;
    }
    last = now;
  };
  const started = (m: unknown): void => {
    const req = (m as { request: object }).request;
    tick();
    open.add(req);
    n++;
  };
  const answered = (m: unknown): void => {
    const req = (m as { request: object }).request;
    if (!open.has(req)) return;
    tick();
    open.delete(req);
    n--;
  };
  subscribe('http.client.request.start', started);
  subscribe('http.client.response.finish', answered);
  return {
    start() {
      tick();
      on = true;
    },
    stop() {
      tick();
      on = false;
      unsubscribe('http.client.request.start', started);
      unsubscribe('http.client.response.finish', answered);
      return { ...t };
    },
  };
}
