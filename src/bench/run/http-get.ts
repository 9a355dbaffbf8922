/**
 * One GET on a given agent (keep-alive, plain or TLS), timed from the
 * request's start to the last byte of its answer. Never rejects: an
 * answer of any status, a network error (refused, reset, timed out) and
 * a request cut off by `signal` are all outcomes.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';

export type GetResult =
  | { kind: 'answer'; status: number; ms: number; body: string }
  | { kind: 'network'; code: string; message: string; ms: number }
  | { kind: 'aborted' };

/** Most body bytes kept when the caller wants the body (a large /metrics is a few hundred KB). */
const MAX_BODY_BYTES = 16 * 2 ** 20;

/**
 * GETs `url` on `agent`. `keepBody`: the body is returned as text (up to
 * 16 MiB), else read and dropped. `signal` aborting cuts the request off
 * (outcome 'aborted').
 */
export function httpGet(agent: http.Agent, url: URL, o: { timeoutMs: number; headers?: Record<string, string>; keepBody?: boolean; signal?: AbortSignal }): Promise<GetResult> {
  return new Promise((resolve) => {
    if (o.signal?.aborted === true) return resolve({ kind: 'aborted' });
    let settled = false;
    const t0 = performance.now();
    const done = (r: GetResult): void => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const req = (url.protocol === 'https:' ? https : http).request(
      { agent, hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, method: 'GET', headers: { 'User-Agent': 'strata-bench', ...o.headers }, timeout: o.timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (c: Buffer) => {
          if (o.keepBody === true && kept < MAX_BODY_BYTES) {
            chunks.push(c);
            kept += c.length;
          }
        });
        res.on('end', () => done({ kind: 'answer', status: res.statusCode ?? 0, ms: performance.now() - t0, body: o.keepBody === true ? Buffer.concat(chunks).toString('utf8') : '' }));
        res.on('error', (err) => done(network(err, t0)));
        res.on('aborted', () => done({ kind: 'network', code: 'ECONNRESET', message: 'the answer was cut off', ms: performance.now() - t0 }));
      },
    );
    const onAbort = (): void => {
      done({ kind: 'aborted' });
      req.destroy();
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('timeout', () => {
      done({ kind: 'network', code: 'timeout', message: `no answer within ${o.timeoutMs} ms`, ms: performance.now() - t0 });
      req.destroy();
    });
    req.on('error', (err) => done(network(err, t0)));
    req.end();
  });
}

function network(err: Error, t0: number): GetResult {
  return { kind: 'network', code: (err as NodeJS.ErrnoException).code ?? 'error', message: err.message, ms: performance.now() - t0 };
}
