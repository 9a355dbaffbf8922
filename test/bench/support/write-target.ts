/**
 * A tiny remote-write receiver on 127.0.0.1 for the load tester's tests:
 * it answers each POST as a script says (by arrival number), every GET 404, decodes
 * what it accepts with the generated prometheus.WriteRequest (snappy
 * block), and counts float samples and native histograms taken.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { uncompressSync } from 'snappy';
import { WriteRequest } from '../../../src/gen/prometheus/remote.js';

/** What to answer: a status (with headers and body), or 'close' to drop the connection unanswered. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'close';

export interface WriteTarget {
  url: string;
  /** Arrival times (ms) of every request, in order. */
  arrivals: number[];
  /** Float samples and histograms in the requests answered 2xx. */
  taken: { samples: number; histograms: number; requests: number };
  /** Headers of the first request. */
  firstHeaders?: IncomingMessage['headers'];
  close(): Promise<void>;
}

/** Starts the target; `script(n)` says how to answer request n (0-based); `delayMs` holds every answer. */
export async function startWriteTarget(script: (n: number) => Answer = () => ({ status: 204 }), delayMs = 0): Promise<WriteTarget> {
  const target: Omit<WriteTarget, 'url' | 'close'> = { arrivals: [], taken: { samples: 0, histograms: 0, requests: 0 } };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    // A bare receiver: no readiness endpoint or /metrics for the bench's GETs, which are not counted.
    if (req.method !== 'POST') {
      res.writeHead(404);
      res.end();
      return;
    }
    const n = target.arrivals.length;
    target.arrivals.push(Date.now());
    target.firstHeaders ??= req.headers;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = script(n);
      const respond = (): void => {
        if (answer === 'close') {
          req.socket.destroy();
          return;
        }
        if (answer.status >= 200 && answer.status < 300) {
          const w = WriteRequest.decode(uncompressSync(Buffer.concat(chunks)) as Buffer);
          for (const ts of w.timeseries) {
            target.taken.samples += ts.samples.length;
            target.taken.histograms += ts.histograms.length;
          }
          target.taken.requests++;
        }
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      };
      if (delayMs > 0) setTimeout(respond, delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    ...target,
    get arrivals() { return target.arrivals; },
    get taken() { return target.taken; },
    get firstHeaders() { return target.firstHeaders; },
    url: `http://127.0.0.1:${port}/api/v1/write`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
