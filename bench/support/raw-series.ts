// A Series call over bare node:http2 for the benchmark: the answer is read
// as raw gRPC framing (0, 4-byte big-endian length, message) without
// grpc-js' per-message work, as a Go client (Thanos Query) would read it.
import http2 from 'node:http2';

export interface RawAnswer {
  /** The messages (SeriesResponse bytes), in order; empty when the call was made with `keep: false`. */
  messages: Buffer[];
  /** Bytes of the answer's body (gRPC framing included). */
  bytes: number;
  status: string;
}

export function connect(address: string): http2.ClientHttp2Session {
  const session = http2.connect(`http://${address}`, { settings: { initialWindowSize: 16 << 20, maxFrameSize: (1 << 24) - 1 } });
  session.on('error', () => {});
  session.once('connect', () => session.setLocalWindowSize(64 << 20));
  return session;
}

/**
 * One Series call. With `keep: false` the answer is only counted, never
 * joined or split (a client that costs next to nothing, for timing).
 */
export function rawSeriesCall(session: http2.ClientHttp2Session, request: Uint8Array, opts: { keep?: boolean; idleTimeoutMs?: number } = {}): Promise<RawAnswer> {
  const keep = opts.keep ?? true;
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(request.length, 1);
  const stream = session.request({ ':method': 'POST', ':path': '/thanos.Store/Series', 'content-type': 'application/grpc', te: 'trailers' });
  stream.end(Buffer.concat([prefix, request]));
  const chunks: Buffer[] = [];
  let bytes = 0;
  let status = '';
  stream.on('trailers', (t) => { status = String(t['grpc-status'] ?? ''); });
  return new Promise((done, fail) => {
    stream.on('data', (b: Buffer) => {
      bytes += b.length;
      if (keep) chunks.push(b);
    });
    stream.on('error', fail);
    if (opts.idleTimeoutMs !== undefined) {
      stream.setTimeout(opts.idleTimeoutMs, () => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        fail(new Error(`Series: nothing received for ${opts.idleTimeoutMs} ms`));
      });
    }
    stream.on('end', () => {
      if (!keep) return done({ messages: [], bytes, status });
      const all = Buffer.concat(chunks);
      const messages: Buffer[] = [];
      for (let at = 0; at + 5 <= all.length;) {
        const len = all.readUInt32BE(at + 1);
        messages.push(all.subarray(at + 5, at + 5 + len));
        at += 5 + len;
      }
      done({ messages, bytes, status });
    });
  });
}
