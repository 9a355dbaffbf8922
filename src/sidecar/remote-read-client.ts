import * as http from 'node:http';
import * as https from 'node:https';
import { compressSync } from 'snappy';
import { ReadRequest, ReadRequest_ResponseType } from '../gen/prometheus/remote.js';
import type { LabelMatcher } from '../index/types.js';
import { decodeChunkedReadResponse, LabelMemo, type DecodedSeries } from './chunked-read-decode.js';
import { FrameSplitter, type FrameFault } from './remote-read-frames.js';
import { sameLabels } from '../encoding/utf8.js';

/** One series of a STREAMED_XOR_CHUNKS answer: labels flat, sorted, and its chunks as Prometheus stored them. */
export type StreamedSeries = DecodedSeries;

/** What a remote read answered: its series, and whether any label holds a character outside the BMP (a UTF-8 lead byte 0xF0 or above). */
export interface RemoteReadAnswer {
  series: StreamedSeries[];
  surrogates: boolean;
}

/** Thrown when Prometheus answers a remote read with an error or a broken stream. */
export class RemoteReadError extends Error {
  override readonly name = 'RemoteReadError';
}

function remoteReadError(url: string, what: string): RemoteReadError {
  return new RemoteReadError(`remote read from ${url}: ${what}`);
}

/** Keep-alive connections to Prometheus, as fetch kept them; idle sockets do not hold the process (Node's agent unrefs them). */
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/**
 * Reads series from a Prometheus' remote read endpoint as a
 * STREAMED_XOR_CHUNKS answer: the request is a snappy ReadRequest, the
 * answer a stream of frames (uvarint length, CRC32C big-endian, a
 * ChunkedReadResponse); chunks are handed on as they come, never decoded
 * (their bytes are views of the answer's pieces). Frames of one series are
 * joined (a series comes whole before the next). Series come sorted by
 * labels, as Prometheus sends them.
 *
 * Read with node:http rather than fetch: each socket read comes as one
 * Buffer of its own, which frames are cut from without copying (fetch's
 * web stream gave small pieces, each copied twice on the way).
 *
 * @param url Prometheus' base URL, e.g. http://127.0.0.1:9090
 */
export function remoteRead(
  url: string, matchers: readonly LabelMatcher[], minT: number, maxT: number, opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<RemoteReadAnswer> {
  const body = compressSync(Buffer.from(ReadRequest.encode({
    queries: [{
      startTimestampMs: BigInt(Math.max(minT, Number.MIN_SAFE_INTEGER)),
      endTimestampMs: BigInt(Math.min(maxT, Number.MAX_SAFE_INTEGER)),
      matchers: matchers.map((m) => ({ type: m.type, name: m.name, value: m.value })),
      hints: undefined,
    }],
    acceptedResponseTypes: [ReadRequest_ResponseType.STREAMED_XOR_CHUNKS],
  }).finish()));
  const signal = opts.signal ?? AbortSignal.timeout(opts.timeoutMs ?? 120_000);
  const target = new URL('/api/v1/read', url);
  const secure = target.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(target, {
      method: 'POST',
      agent: secure ? agents.https : agents.http,
      signal,
      headers: {
        'Content-Encoding': 'snappy',
        'Content-Type': 'application/x-protobuf',
        'Content-Length': body.length,
        'X-Prometheus-Remote-Read-Version': '0.1.0',
        'User-Agent': 'strata-sidecar',
      },
    }, (res) => {
      res.on('error', reject);
      const type = res.headers['content-type'] ?? '';
      if (res.statusCode !== 200) {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => reject(new RemoteReadError(`remote read from ${url} answered ${res.statusCode}: ${Buffer.concat(parts).toString().slice(0, 500)}`)));
        return;
      }
      if (!type.startsWith('application/x-streamed-protobuf')) {
        res.resume();
        reject(new RemoteReadError(`remote read from ${url} answered ${JSON.stringify(type)}, not a STREAMED_XOR_CHUNKS stream (Prometheus 2.13 or newer needed)`));
        return;
      }
      const answer = new AnswerBuilder(url);
      res.on('data', (piece: Buffer) => {
        try {
          answer.push(piece);
        } catch (err) {
          res.destroy();
          reject(err);
        }
      });
      res.on('end', () => {
        try {
          resolve(answer.finish());
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Series of the answer as its pieces arrive: frames split, decoded, and a series cut across frames joined. */
class AnswerBuilder {
  private readonly series: StreamedSeries[] = [];
  private surrogates = false;
  private readonly frames: FrameSplitter;
  private readonly memo = new LabelMemo();

  constructor(private readonly url: string) {
    this.frames = new FrameSplitter((frame) => this.frame(frame), (fault, bytes) => this.fault(fault, bytes));
  }

  push(piece: Buffer): void {
    this.frames.push(piece);
  }

  finish(): RemoteReadAnswer {
    const held = this.frames.heldBytes;
    if (held > 0) throw remoteReadError(this.url, `the stream ended inside a frame (${held} bytes left)`);
    return { series: this.series, surrogates: this.surrogates };
  }

  private frame(body: Buffer): void {
    try {
      if (decodeChunkedReadResponse(body, (s) => this.add(s), this.memo)) this.surrogates = true;
    } catch (err) {
      throw remoteReadError(this.url, `broken ChunkedReadResponse: ${(err as Error).message}`);
    }
  }

  private add(s: DecodedSeries): void {
    const last = this.series[this.series.length - 1];
    if (last !== undefined && sameLabels(last.labels, s.labels)) {
      for (const c of s.chunks) last.chunks.push(c);
      return;
    }
    this.series.push(s);
  }

  private fault(fault: FrameFault, bytes: number): never {
    throw remoteReadError(this.url, fault === 'frame past the limit' ? `a frame of ${bytes} bytes is past the limit` : fault);
  }
}
