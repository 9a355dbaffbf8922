/**
 * The two answers the sidecar benchmark compares, read the same way:
 * Prometheus' remote read as STREAMED_XOR_CHUNKS (frames of uvarint
 * length, CRC32C, ChunkedReadResponse) over a keep-alive HTTP/1.1
 * connection, and the Store API's Series over bare HTTP/2 (raw gRPC
 * framing, support/raw-series.ts). Timed calls only count bytes to the
 * last one; the answers are decoded once, outside the timing, into a
 * summary that must agree between the two (what Thanos' sidecar would
 * pass on is exactly Prometheus' chunks).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { crc32c } from '@node-rs/crc32';
import { compressSync } from 'snappy';
import { ChunkedReadResponse, ReadRequest, ReadRequest_ResponseType } from '../../src/gen/prometheus/remote.js';
import { SeriesResponse } from '../../src/gen/thanos/store/rpc.js';

export interface AnswerSummary {
  series: number;
  chunks: number;
  /** Bytes of chunk data (each chunk's bytes, sample count header included). */
  chunkBytes: number;
  /** Samples the chunks hold (their 2-byte headers: whole chunks, as sent). */
  samples: number;
  /** Every series' labels as `name=value,...`, in the order answered. */
  labels: string[];
}

/** An equality matcher, as both protocols number it (EQ = 0). */
export interface EqMatcher {
  name: string;
  value: string;
}

/** The snappy-compressed ReadRequest of one query asking for STREAMED_XOR_CHUNKS. */
export function readRequestBody(matchers: readonly EqMatcher[], minT: number, maxT: number): Buffer {
  return compressSync(Buffer.from(ReadRequest.encode({
    queries: [{ startTimestampMs: BigInt(minT), endTimestampMs: BigInt(maxT), matchers: matchers.map((m) => ({ type: 0, name: m.name, value: m.value })), hints: undefined }],
    acceptedResponseTypes: [ReadRequest_ResponseType.STREAMED_XOR_CHUNKS],
  }).finish()));
}

/**
 * POSTs a remote read and resolves at its last byte with the time taken
 * and the body's size; the body itself only when `keep`.
 */
export function remoteRead(agent: http.Agent, url: URL, body: Buffer, opts: { keep: boolean; timeoutMs: number }): Promise<{ ms: number; bytes: number; body?: Buffer }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request({
      agent, hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', timeout: opts.timeoutMs,
      headers: {
        'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', 'X-Prometheus-Remote-Read-Version': '0.1.0', 'Content-Length': body.length,
      },
    }, (res) => {
      const parts: Buffer[] = [];
      let bytes = 0;
      res.on('data', (b: Buffer) => {
        bytes += b.length;
        if (opts.keep || res.statusCode !== 200) parts.push(b);
      });
      res.on('error', reject);
      res.on('end', () => {
        const ms = performance.now() - t0;
        if (res.statusCode !== 200) return reject(new Error(`remote read: ${res.statusCode} ${Buffer.concat(parts).toString().slice(0, 500)}`));
        const type = res.headers['content-type'] ?? '';
        if (!type.startsWith('application/x-streamed-protobuf')) return reject(new Error(`remote read answered ${type}, not streamed chunks`));
        resolve({ ms, bytes, ...(opts.keep ? { body: Buffer.concat(parts) } : {}) });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`remote read: no answer in ${opts.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

const labelText = (labels: ReadonlyArray<{ name: string; value: string }>): string => labels.map((l) => `${l.name}=${l.value}`).join(',');

/** A STREAMED_XOR_CHUNKS body, frame by frame (CRC-checked); a series split over frames counts once. */
export function summarizeRemoteRead(buf: Buffer): AnswerSummary {
  const out: AnswerSummary = { series: 0, chunks: 0, chunkBytes: 0, samples: 0, labels: [] };
  let at = 0;
  let last = '';
  while (at < buf.length) {
    let len = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (i >= 10 || at >= buf.length) throw new Error('remote read: bad frame length');
      const b = buf[at++]!;
      len += (b & 0x7f) * scale;
      scale *= 128;
      if (b < 0x80) break;
    }
    const crc = buf.readUInt32BE(at);
    const message = buf.subarray(at + 4, at + 4 + len);
    at += 4 + len;
    if (crc32c(message) !== crc) throw new Error('remote read: frame checksum mismatch');
    for (const s of ChunkedReadResponse.decode(message).chunkedSeries) {
      const key = labelText(s.labels);
      if (key !== last) {
        out.series++;
        out.labels.push(key);
      }
      last = key;
      for (const c of s.chunks) {
        out.chunks++;
        out.chunkBytes += c.data.length;
        out.samples += (c.data[0]! << 8) | c.data[1]!;
      }
    }
  }
  return out;
}

/** The SeriesResponse messages of a Series answer; warnings are returned apart. */
export function summarizeSeries(messages: readonly Buffer[]): AnswerSummary & { warnings: string[] } {
  const out = { series: 0, chunks: 0, chunkBytes: 0, samples: 0, labels: [] as string[], warnings: [] as string[] };
  for (const m of messages) {
    const r = SeriesResponse.decode(m);
    if (r.result?.$case === 'warning') out.warnings.push(r.result.value);
    if (r.result?.$case !== 'series') continue;
    out.series++;
    out.labels.push(labelText(r.result.value.labels));
    for (const c of r.result.value.chunks) {
      const data = c.raw?.data;
      if (data === undefined) continue;
      out.chunks++;
      out.chunkBytes += data.length;
      out.samples += (data[0]! << 8) | data[1]!;
    }
  }
  return out;
}

/** What differs between two summaries (empty when they agree). */
export function differences(a: AnswerSummary, b: AnswerSummary): string[] {
  const out: string[] = [];
  for (const k of ['series', 'chunks', 'chunkBytes', 'samples'] as const) if (a[k] !== b[k]) out.push(`${k}: ${a[k]} against ${b[k]}`);
  const sa = [...a.labels].sort();
  const sb = [...b.labels].sort();
  const first = sa.findIndex((l, i) => l !== sb[i]);
  if (first >= 0 || sa.length !== sb.length) out.push(`label sets differ, first at ${first}: ${sa[first] ?? '(none)'} against ${sb[first] ?? '(none)'}`);
  return out;
}
