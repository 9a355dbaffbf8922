/** Raw HTTP/1.1 over a socket, for what fetch hides: answers that come before the body has been sent. */
import net from 'node:net';

export interface RawAnswer {
  /** The status line and headers, and the body as far as received. */
  head: string;
  status: number;
  /** Header names lower-cased. */
  headers: Map<string, string>;
  body: string;
  /** How much of the request body had been written when the answer was complete. */
  bodyBytesWritten: number;
}

/**
 * Writes `head` (request line and headers ending in an empty line), then
 * `body` in pieces of `pieceSize` bytes, one piece per event-loop turn,
 * until the whole answer (status, headers, Content-Length body) has
 * arrived. Then hangs up, as a client does after `Connection: close`.
 * Rejects if no complete answer comes within `timeoutMs`.
 */
export function sendUntilAnswered(port: number, head: string, body: Buffer, pieceSize: number, timeoutMs: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let written = 0;
    let settled = false;
    const timer = setTimeout(() => finish(new Error(`no complete answer in ${timeoutMs} ms; got: ${received.toString('latin1').slice(0, 200)}`)), timeoutMs);
    function finish(result: RawAnswer | Error) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    }
    function parse(): RawAnswer | undefined {
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const lines = text.slice(0, end).split('\r\n');
      const headers = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const status = Number(lines[0]!.split(' ')[1]);
      if (status === 100) {
        received = received.subarray(end + 4);
        return parse();
      }
      const length = Number(headers.get('content-length') ?? 0);
      if (received.length < end + 4 + length) return undefined;
      return { head: text.slice(0, end), status, headers, body: text.slice(end + 4, end + 4 + length), bodyBytesWritten: written };
    }
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      const answer = parse();
      if (answer !== undefined) finish(answer);
    });
    socket.on('error', (err) => finish(err));
    socket.on('close', () => finish(new Error(`closed before a complete answer; got: ${received.toString('latin1').slice(0, 200)}`)));
    socket.once('connect', () => {
      socket.write(head);
      const pump = () => {
        if (settled || written >= body.length) return;
        const piece = body.subarray(written, written + pieceSize);
        written += piece.length;
        if (socket.write(piece)) setImmediate(pump);
        else socket.once('drain', pump);
      };
      pump();
    });
  });
}

/** `data` in HTTP/1.1 chunked framing, `size` bytes per chunk, without the terminating chunk. */
export function chunked(data: Buffer, size: number): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) {
    const piece = data.subarray(at, at + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}
