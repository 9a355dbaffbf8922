import { crc32c } from '@node-rs/crc32';
import { compressSync } from 'snappy';
import { ChunkedReadResponse, ReadRequest, ReadRequest_ResponseType } from '../gen/prometheus/remote.js';
import type { LabelMatcher } from '../index/types.js';
import { MAX_VARINT64_BYTES, readUvarint, type VarintRead } from '../encoding/varint.js';
import type { StoredChunk } from '../query/types.js';

/** One series of a STREAMED_XOR_CHUNKS answer: labels flat, sorted, and its chunks as Prometheus stored them. */
export interface StreamedSeries {
  labels: string[];
  chunks: StoredChunk[];
}

/** Longest frame taken: Prometheus sends about 1 MiB; a frame past this is a broken stream. */
const MAX_FRAME_BYTES = 64 << 20;

const frameLength: VarintRead = { value: 0, next: 0 };

/** Thrown when Prometheus answers a remote read with an error or a broken stream. */
export class RemoteReadError extends Error {
  override readonly name = 'RemoteReadError';
}

/**
 * Reads series from a Prometheus' remote read endpoint as a
 * STREAMED_XOR_CHUNKS answer: the request is a snappy ReadRequest, the
 * answer a stream of frames (uvarint length, CRC32C big-endian, a
 * ChunkedReadResponse); chunks are handed on as they come, never decoded.
 * Frames of one series are joined (a series comes whole before the next).
 * Series come sorted by labels, as Prometheus sends them, in batches: the
 * series completed by each piece of the answer that arrives (a batch may
 * be empty).
 *
 * @param url Prometheus' base URL, e.g. http://127.0.0.1:9090
 */
export async function* remoteReadStream(
  url: string, matchers: readonly LabelMatcher[], minT: number, maxT: number, opts: { signal?: AbortSignal; timeoutMs?: number } = {},
): AsyncGenerator<StreamedSeries[]> {
  const req = ReadRequest.encode({
    queries: [{
      startTimestampMs: BigInt(Math.max(minT, Number.MIN_SAFE_INTEGER)),
      endTimestampMs: BigInt(Math.min(maxT, Number.MAX_SAFE_INTEGER)),
      matchers: matchers.map((m) => ({ type: m.type, name: m.name, value: m.value })),
      hints: undefined,
    }],
    acceptedResponseTypes: [ReadRequest_ResponseType.STREAMED_XOR_CHUNKS],
  }).finish();
  const signal = opts.signal ?? AbortSignal.timeout(opts.timeoutMs ?? 120_000);
  const res = await fetch(new URL('/api/v1/read', url), {
    method: 'POST',
    body: compressSync(Buffer.from(req)),
    headers: {
      'Content-Encoding': 'snappy',
      'Content-Type': 'application/x-protobuf',
      'X-Prometheus-Remote-Read-Version': '0.1.0',
      'User-Agent': 'strata-sidecar',
    },
    signal,
  });
  if (!res.ok || res.body === null) {
    throw new RemoteReadError(`remote read from ${url} answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
  }
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('application/x-streamed-protobuf')) {
    throw new RemoteReadError(`remote read from ${url} answered ${JSON.stringify(type)}, not a STREAMED_XOR_CHUNKS stream (Prometheus 2.13 or newer needed)`);
  }
  let buf = Buffer.alloc(0);
  let current: StreamedSeries | undefined;
  let currentKey = '';
  for await (const piece of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf = buf.length === 0 ? Buffer.from(piece) : Buffer.concat([buf, piece]);
    const done: StreamedSeries[] = [];
    for (;;) {
      const frame = nextFrame(buf, url);
      if (frame === undefined) break;
      buf = buf.subarray(frame.end);
      const msg = ChunkedReadResponse.decode(frame.body);
      for (const cs of msg.chunkedSeries) {
        const labels: string[] = [];
        for (const l of cs.labels) labels.push(l.name, l.value);
        const key = labels.join('\xff');
        const chunks: StoredChunk[] = cs.chunks.map((c) => {
          const chunk: StoredChunk = { minT: Number(c.minTimeMs), maxT: Number(c.maxTimeMs), data: c.data };
          if (c.type !== 1) chunk.encoding = c.type;
          return chunk;
        });
        if (current !== undefined && key === currentKey) {
          current.chunks.push(...chunks);
          continue;
        }
        if (current !== undefined) done.push(current);
        current = { labels, chunks };
        currentKey = key;
      }
    }
    if (done.length > 0) yield done;
  }
  if (buf.length > 0) throw new RemoteReadError(`remote read from ${url}: the stream ended inside a frame (${buf.length} bytes left)`);
  if (current !== undefined) yield [current];
}

/** The next whole frame in `b`, or undefined when more bytes are needed. */
function nextFrame(b: Buffer, url: string): { body: Uint8Array; end: number } | undefined {
  const { value: len, next: at } = readUvarint(b, 0, Math.min(b.length, MAX_VARINT64_BYTES), frameLength);
  if (at < 0) {
    // Cut short by what has arrived so far, or no length at all.
    if (b.length < MAX_VARINT64_BYTES) return undefined;
    throw new RemoteReadError(`remote read from ${url}: bad frame length`);
  }
  if (len > MAX_FRAME_BYTES) throw new RemoteReadError(`remote read from ${url}: a frame of ${len} bytes is past the limit`);
  if (b.length < at + 4 + len) return undefined;
  const want = b.readUInt32BE(at);
  const body = b.subarray(at + 4, at + 4 + len);
  const got = crc32c(body) >>> 0;
  if (got !== want) throw new RemoteReadError(`remote read from ${url}: frame checksum mismatch`);
  return { body, end: at + 4 + len };
}
