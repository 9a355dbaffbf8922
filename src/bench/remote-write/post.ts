/**
 * One remote-write POST on a keep-alive agent, classified: 2xx, an HTTP
 * error status (with its body's start and Retry-After), or a network error
 * (refused, reset, closed, timed out). Never rejects: every way a request
 * can end is an outcome.
 */
import http from 'node:http';
import https from 'node:https';
import type { Outcome } from '../run/answers.js';
import type { HttpClientTls } from './options.js';

/** Remote write 1.0's headers (the specification requires all four). */
export const REMOTE_WRITE_HEADERS = {
  'Content-Encoding': 'snappy',
  'Content-Type': 'application/x-protobuf',
  'X-Prometheus-Remote-Write-Version': '0.1.0',
  'User-Agent': 'strata-bench',
} as const;

/** An answer's body text kept for the summary (the start says what was wrong). */
const BODY_CHARS = 500;

export interface PostResult {
  outcome: Outcome;
  /** Retry-After of a 429 (or 503), in ms; undefined when absent or unreadable. */
  retryAfterMs?: number;
}

/** Retry-After: seconds, or an HTTP date (RFC 9110 10.2.3); undefined when neither. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const date = Date.parse(v);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/**
 * A keep-alive agent for `url`; for https, `tls` replaces the system's CAs
 * with its CA (as Prometheus' ca_file does), adds a client certificate and
 * names the server (the agent's options go onto every connection it makes).
 */
export function makeAgent(url: URL, sockets: number, tls?: HttpClientTls): http.Agent {
  if (url.protocol !== 'https:') return new http.Agent({ keepAlive: true, maxSockets: sockets });
  return new https.Agent({
    keepAlive: true,
    maxSockets: sockets,
    ...(tls?.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls?.cert === undefined || tls.key === undefined ? {} : { cert: tls.cert, key: tls.key }),
    // Node checks the certificate against servername when it is set, else against the URL's host.
    ...(tls?.serverName === undefined ? {} : { servername: tls.serverName }),
    ...(tls?.insecureSkipVerify ? { rejectUnauthorized: false } : {}),
  });
}

/** POSTs `body` to `url` with `headers` (all of them: REMOTE_WRITE_HEADERS for remote write); resolves with the classified outcome. */
export function post(agent: http.Agent, url: URL, headers: Record<string, string>, body: Buffer, timeoutMs: number): Promise<PostResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: PostResult): void => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    const req = (url.protocol === 'https:' ? https : http).request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, 'Content-Length': body.length },
        timeout: timeoutMs,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (c: Buffer) => {
          if (kept < BODY_CHARS) {
            chunks.push(c);
            kept += c.length;
          }
        });
        res.on('end', () => {
          if (status >= 200 && status < 300) return done({ outcome: { kind: 'ok' } });
          const message = Buffer.concat(chunks).toString('utf8').slice(0, BODY_CHARS).trim();
          const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
          done({ outcome: { kind: 'http', status, message }, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
        });
        res.on('error', (err) => done({ outcome: networkOutcome(err) }));
        res.on('aborted', () => done({ outcome: { kind: 'network', code: 'ECONNRESET', message: 'the answer was cut off' } }));
      },
    );
    req.on('timeout', () => {
      done({ outcome: { kind: 'network', code: 'timeout', message: `no answer within ${timeoutMs} ms` } });
      req.destroy();
    });
    req.on('error', (err) => done({ outcome: networkOutcome(err) }));
    req.end(body);
  });
}

function networkOutcome(err: Error): Outcome {
  const code = (err as NodeJS.ErrnoException).code ?? 'error';
  // A server that closes the connection without an answer: Node says "socket hang up" (ECONNRESET).
  return { kind: 'network', code, message: err.message };
}
