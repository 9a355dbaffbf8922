/**
 * A Prometheus remote-read client for the comparison: one query, SAMPLES
 * or STREAMED_XOR_CHUNKS, timed to the last byte of the answer; the answer
 * is then parsed (outside the timing) to count series, chunks and samples,
 * so that the servers' answers can be checked against each other.
 *
 * Wire (proto/prometheus/remote.proto): POST a snappy block of a ReadRequest;
 * SAMPLES answers a snappy ReadResponse; STREAMED_XOR_CHUNKS answers frames
 * of uvarint length, CRC32C (big-endian) of the message, ChunkedReadResponse.
 */
import { performance } from 'node:perf_hooks';
import { crc32c } from '@node-rs/crc32';
import { compressSync, uncompressSync } from 'snappy';
import { ChunkedReadResponse, ReadRequest, ReadRequest_ResponseType, ReadResponse } from '../../gen/prometheus/remote.js';
import type { LabelMatcher } from '../../gen/prometheus/types.js';
import { readUvarint, type VarintRead } from '../../encoding/varint.js';

export interface ReadAnswer {
  /** Request sent to last byte received. */
  ms: number;
  bytes: number;
  series: number;
  chunks: number;
  /** SAMPLES: samples answered; chunks: the samples the chunks hold (whole chunks, as sent). */
  samples: number;
}

/** Reads `matchers` over [startMs, endMs] from `url` (…/api/v1/read). */
export async function remoteRead(url: string, matchers: LabelMatcher[], startMs: number, endMs: number, type: ReadRequest_ResponseType, timeoutMs: number): Promise<ReadAnswer> {
  const body = compressSync(Buffer.from(ReadRequest.encode({
    queries: [{ startTimestampMs: BigInt(startMs), endTimestampMs: BigInt(endMs), matchers }],
    acceptedResponseTypes: [type],
  }).finish()));
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', 'X-Prometheus-Remote-Read-Version': '0.1.0' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const answer = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`POST ${url}: ${res.status} ${answer.toString().slice(0, 500)}`);
  const contentType = res.headers.get('content-type') ?? '';
  if (type === ReadRequest_ResponseType.STREAMED_XOR_CHUNKS) {
    if (!contentType.startsWith('application/x-streamed-protobuf')) throw new Error(`POST ${url}: asked for streamed chunks, got ${contentType}`);
    return { ms, bytes: answer.length, ...countFrames(answer) };
  }
  const decoded = ReadResponse.decode(uncompressSync(answer) as Buffer);
  let series = 0;
  let samples = 0;
  for (const r of decoded.results) {
    series += r.timeseries.length;
    for (const s of r.timeseries) samples += s.samples.length;
  }
  return { ms, bytes: answer.length, series, chunks: 0, samples };
}

const frameLength: VarintRead = { value: 0, next: 0 };

function countFrames(buf: Buffer): { series: number; chunks: number; samples: number } {
  let at = 0;
  let series = 0;
  let chunks = 0;
  let samples = 0;
  let lastLabels = '';
  while (at < buf.length) {
    const { value: len, next } = readUvarint(buf, at, buf.length, frameLength);
    if (next < 0) throw new Error('remote read: bad frame length');
    at = next;
    const crc = buf.readUInt32BE(at);
    const message = buf.subarray(at + 4, at + 4 + len);
    at += 4 + len;
    if (crc32c(message) !== crc) throw new Error('remote read: frame checksum mismatch');
    for (const s of ChunkedReadResponse.decode(message).chunkedSeries) {
      // A series split over frames repeats its labels; count it once.
      const key = s.labels.map((l) => `${l.name}\xff${l.value}`).join('\xff');
      if (key !== lastLabels) series++;
      lastLabels = key;
      for (const c of s.chunks) {
        chunks++;
        samples += (c.data[0]! << 8) | c.data[1]!;
      }
    }
  }
  return { series, chunks, samples };
}
