/**
 * One HTTPS request with a chosen CA and, optionally, a client certificate
 * (Node's fetch takes neither without undici's Agent). Bounded: rejects
 * after `timeoutMs`; a refused handshake rejects with its error.
 */
import https from 'node:https';

export interface TlsClient {
  /** PEM of the CA that signed the server's certificate. */
  ca: Buffer;
  /** PEM client certificate and key, when the client presents one. */
  cert?: Buffer;
  key?: Buffer;
}

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The body as UTF-8. */
  text: string;
}

export function httpsCall(
  port: number, method: string, path: string, client: TlsClient,
  options: { body?: string | Uint8Array; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: '127.0.0.1', port, method, path, headers: options.headers, agent: false, timeout: options.timeoutMs ?? 10_000,
      ca: client.ca, ...(client.cert === undefined ? {} : { cert: client.cert, key: client.key }),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString() });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in ${options.timeoutMs ?? 10_000} ms`)));
    req.on('error', reject);
    req.end(options.body);
  });
}
