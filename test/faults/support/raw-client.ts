/**
 * A raw HTTP/1.1 client over one socket on 127.0.0.1, for what fetch hides:
 * how the connection ends (a clean close or a reset), answers that come
 * before the body has been sent, Content-Length values no library sends.
 */
import net from 'node:net';

/** One answer as read off the socket. */
export interface RawAnswer {
  status: number;
  /** Header names lower-cased. */
  headers: Map<string, string>;
  /** The body, de-chunked when the answer was chunked. */
  body: Buffer;
}

/** What a connection brought: the answers read and how it ended. */
export interface RawExchange {
  answers: RawAnswer[];
  /** The socket's error code (EPIPE, ECONNRESET), if it had one. */
  error?: string;
  /** True when the server closed its side (FIN) with no error. */
  closedCleanly: boolean;
  /** Request body bytes the socket accepted before it ended. */
  written: number;
}

/** Parses as many complete answers as `data` holds; the rest is left. */
export function parseAnswers(data: Buffer): { answers: RawAnswer[]; rest: Buffer } {
  const answers: RawAnswer[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', at, 'latin1');
    if (end < 0) break;
    const lines = data.toString('latin1', at, end).split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    let next = end + 4;
    if (status === 100) {
      at = next;
      continue;
    }
    let body: Buffer | undefined;
    if (headers.get('transfer-encoding') === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = data.indexOf('\r\n', next, 'latin1');
        if (lineEnd < 0) break;
        const size = parseInt(data.toString('latin1', next, lineEnd), 16);
        if (Number.isNaN(size) || data.length < lineEnd + 2 + size + 2) break;
        if (size === 0) {
          body = Buffer.concat(parts);
          next = lineEnd + 4;
          break;
        }
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        next = lineEnd + 2 + size + 2;
      }
    } else {
      const length = Number(headers.get('content-length') ?? 0);
      if (data.length >= next + length) {
        body = data.subarray(next, next + length);
        next += length;
      }
    }
    if (body === undefined) break;
    answers.push({ status, headers, body: Buffer.from(body) });
    at = next;
  }
  return { answers, rest: data.subarray(at) };
}

/**
 * Opens a connection, writes `head` then `body` (as fast as the socket
 * takes it, not waiting for an answer), then `then` if given once the body
 * is written, and reads until the server closes the connection or
 * `timeoutMs` passes (then it is destroyed here).
 */
export function exchange(port: number, head: string, body: Buffer, options: { then?: string; timeoutMs?: number } = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let error: string | undefined;
    let written = 0;
    let finished = false;
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs ?? 15_000);
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
    });
    socket.on('end', () => {
      finished = true;
      socket.end();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answers: parseAnswers(received).answers, closedCleanly: finished && error === undefined, written, ...(error === undefined ? {} : { error }) });
    });
    socket.once('connect', () => {
      socket.write(head);
      const piece = 256 * 1024;
      const pump = (): void => {
        while (written < body.length && !socket.destroyed) {
          const part = body.subarray(written, written + piece);
          written += part.length;
          if (!socket.write(part)) {
            socket.once('drain', pump);
            return;
          }
        }
        if (options.then !== undefined && !socket.destroyed) socket.write(options.then);
      };
      pump();
    });
  });
}

/** The answers' JSON body with the padding (JSON whitespace) trimmed. */
export function json(answer: RawAnswer): Record<string, unknown> {
  return JSON.parse(answer.body.toString('utf8').trim()) as Record<string, unknown>;
}
