/**
 * Sends a pre-encoded remote-write load to one server, scrape by scrape:
 * every request of scrape i is answered before any request of scrape i+1
 * is sent (so every series gets sample i before any gets i+1), with up to
 * `inFlight` requests on as many keep-alive connections within a scrape.
 * Bounded: each request and the whole load have a timeout, and the first
 * failed request stops the run with its status and body.
 */
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { EncodedLoad } from './requests.js';

export interface SendOptions {
  /** http://127.0.0.1:PORT/api/v1/write */
  url: string;
  inFlight: number;
  /** Per request; a request that takes longer fails the run. */
  requestTimeoutMs: number;
  /** The whole load must be sent within this (ms), or the run fails. */
  totalTimeoutMs: number;
  /** Called after each finished scrape. */
  onScrape?: (scrape: number, samplesSent: number) => void;
  /** For an https: URL: the CA to trust and, optionally, the client certificate and key (PEM). */
  tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
}

export interface SendResult {
  samples: number;
  requests: number;
  seconds: number;
  /** Per-request latency (ms), sorted. */
  latenciesMs: Float64Array;
  /** CPU this process spent sending (user + system, seconds). */
  clientCpuSeconds: number;
}

const HEADERS = {
  'Content-Encoding': 'snappy',
  'Content-Type': 'application/x-protobuf',
  'User-Agent': 'strata-bench-compare',
  'X-Prometheus-Remote-Write-Version': '0.1.0',
};

function post(agent: http.Agent, url: URL, body: Buffer, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(
      { agent, hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...HEADERS, 'Content-Length': body.length }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`POST ${url.href}: ${status} ${Buffer.concat(chunks).toString().slice(0, 500)}`));
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`POST ${url.href}: no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `load` to `options.url`; rejects on the first failed request. */
export async function sendLoad(load: EncodedLoad, options: SendOptions): Promise<SendResult> {
  const url = new URL(options.url);
  const agent = url.protocol === 'https:'
    ? new https.Agent({ keepAlive: true, maxSockets: options.inFlight, ...options.tls })
    : new http.Agent({ keepAlive: true, maxSockets: options.inFlight });
  const perScrape = load.requests[0]?.length ?? 0;
  const latencies = new Float64Array(load.scrapes * perScrape);
  let done = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    for (let s = 0; s < load.scrapes; s++) {
      const row = load.requests[s]!;
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < row.length) {
          if (performance.now() - t0 > options.totalTimeoutMs) throw new Error(`POST ${url.href}: load not sent in ${options.totalTimeoutMs} ms (at scrape ${s})`);
          const body = row[next++]!;
          const r0 = performance.now();
          await post(agent, url, body, options.requestTimeoutMs);
          latencies[done++] = performance.now() - r0;
        }
      };
      await Promise.all(Array.from({ length: Math.min(options.inFlight, row.length) }, worker));
      options.onScrape?.(s, (s + 1) * load.series);
    }
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { samples: load.samples, requests: done, seconds, latenciesMs: latencies.sort(), clientCpuSeconds: (cpu.user + cpu.system) / 1e6 };
}
