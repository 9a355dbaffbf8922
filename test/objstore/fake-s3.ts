import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openBucket, parseBucketConfig, type ObjstoreLogger } from '../../src/objstore/index.js';

/** Thanos bucket YAML for `s`, with extra config lines. */
export function s3Yaml(s: { endpoint: string; accessKey: string; secretKey: string }, bucket: string, extra: string[] = [], prefix = ''): string {
  return [
    'type: s3',
    'config:',
    `  bucket: "${bucket}"`,
    `  endpoint: "${s.endpoint}"`,
    `  access_key: "${s.accessKey}"`,
    `  secret_key: "${s.secretKey}"`,
    '  insecure: true',
    ...extra.map((l) => `  ${l}`),
    `prefix: "${prefix}"`,
    '',
  ].join('\n');
}

/** A stand-in S3 on 127.0.0.1 that answers as `answer` says, recording each request. */
export async function fakeS3(answer: (req: IncomingMessage, body: Buffer, n: number, res: ServerResponse) => void) {
  const requests: { method: string; url: string; bytes: number; headers: IncomingMessage['headers'] }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: req.method!, url: req.url!, bytes: body.length, headers: req.headers });
      answer(req, body, requests.length, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const endpoint = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    requests,
    open: (extra: string[], log?: ObjstoreLogger) => openBucket(parseBucketConfig(s3Yaml({ endpoint, accessKey: 'k', secretKey: 's' }, 'fake', ['region: us-east-1', ...extra])), log),
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

export function unavailable(res: ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/xml' });
  res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>try again</Message></Error>');
}

