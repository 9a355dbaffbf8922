/**
 * A Series call over plain node:http2, for the one test that must hold a
 * stream open with the server blocked on flow control: grpc-js buffers up
 * to 16 messages (16 MiB of 1 MiB frames) however slowly the caller reads,
 * while a bare HTTP/2 stream that is not read stops the server after its
 * 64 KiB window. Framing: each gRPC message is a 0 byte (not compressed),
 * a 4-byte big-endian length and the message; the status comes in the
 * trailers (grpc-status, grpc-message).
 */
import http2 from 'node:http2';
import { decodeSeriesFrame, encodeSeriesRequest, type Frame, type SeriesRequest } from './client.js';

export interface RawSeriesCall {
  /** Resolves when the response headers arrived: the server has taken the call. */
  readonly started: Promise<void>;
  /** Starts reading; resolves with every frame and the status once the stream ends. */
  readAll(): Promise<{ code: number; details: string; frames: Frame[] }>;
  close(): void;
}

/** Opens a Series call and reads nothing until readAll(). */
export function rawSeries(address: string, request: SeriesRequest, deadlineMs: number): RawSeriesCall {
  const session = http2.connect(`http://${address}`);
  session.on('error', () => {});
  const body = encodeSeriesRequest(request);
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(body.length, 1);
  const stream = session.request({
    ':method': 'POST',
    ':path': '/thanos.Store/Series',
    'content-type': 'application/grpc',
    te: 'trailers',
    'grpc-timeout': `${deadlineMs}m`,
  });
  stream.end(Buffer.concat([prefix, body]));
  let headers: http2.IncomingHttpHeaders = {};
  let trailers: http2.IncomingHttpHeaders = {};
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no response headers in ${deadlineMs} ms`)), deadlineMs);
    stream.once('response', (h) => {
      clearTimeout(timer);
      headers = h;
      resolve();
    });
    stream.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
  stream.on('trailers', (t) => {
    trailers = t;
  });

  return {
    started,
    readAll() {
      return new Promise((resolve) => {
        const chunks: Buffer[] = [];
        let done = false;
        const timer = setTimeout(() => {
          done = true;
          stream.close();
          resolve({ code: 4, details: `no end of stream in ${deadlineMs} ms`, frames: [] });
        }, deadlineMs);
        stream.on('data', (b: Buffer) => chunks.push(b));
        const finish = (err?: Error) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          const all = Buffer.concat(chunks);
          const frames: Frame[] = [];
          let at = 0;
          while (at + 5 <= all.length) {
            const len = all.readUInt32BE(at + 1);
            if (at + 5 + len > all.length) break;
            frames.push(decodeSeriesFrame(all.subarray(at + 5, at + 5 + len)));
            at += 5 + len;
          }
          const status = trailers['grpc-status'] ?? headers['grpc-status'];
          const message = trailers['grpc-message'] ?? headers['grpc-message'];
          const code = status === undefined ? 2 : Number(status);
          const details = err ? `${err.message}` : decodeURIComponent(String(message ?? ''));
          if (at !== all.length) resolve({ code: 2, details: `the stream ended inside a message (${all.length - at} bytes left)`, frames });
          else resolve({ code, details, frames });
        };
        stream.once('end', () => finish());
        stream.once('error', (err) => finish(err));
      });
    },
    close() {
      stream.close();
      session.close();
    },
  };
}
