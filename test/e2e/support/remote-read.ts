/**
 * A Prometheus remote-read client for the end-to-end tests: asks one query
 * for SAMPLES or STREAMED_XOR_CHUNKS and turns either answer into series
 * of samples within the asked range (chunks are decoded with the
 * TypeScript XOR codec, the oracle, and trimmed: servers send whole chunks).
 * Values are kept as raw 64-bit patterns, so stale markers compare exactly.
 *
 * Wire (../../../../shared/WIRE.md): POST a snappy block of a ReadRequest;
 * SAMPLES answers a snappy ReadResponse; STREAMED_XOR_CHUNKS answers frames
 * of uvarint length, CRC32C (big-endian) of the message, ChunkedReadResponse.
 */
import { crc32c } from '@node-rs/crc32';
import { compressSync, uncompressSync } from 'snappy';
import { TsXorCodec } from '../../../src/chunkenc/index.js';
import { ChunkedReadResponse, ReadRequest, ReadRequest_ResponseType, ReadResponse } from '../../../src/gen/prometheus/remote.js';
import { Chunk_Encoding, type LabelMatcher } from '../../../src/gen/prometheus/types.js';

/** One series: its labels as `name="value"` joined by commas, and its samples as `t:bits` strings in time order. */
export interface ReadSeries {
  labels: string;
  samples: string[];
}

const codec = new TsXorCodec();
const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

function labelKey(labels: ReadonlyArray<{ name: string; value: string }>): string {
  return labels.map((l) => `${l.name}=${JSON.stringify(l.value)}`).join(',');
}

/** POSTs one remote-read query and returns the answer's series within [startMs, endMs]. */
export async function remoteReadSeries(url: string, matchers: LabelMatcher[], startMs: number, endMs: number, type: ReadRequest_ResponseType): Promise<ReadSeries[]> {
  const body = compressSync(Buffer.from(ReadRequest.encode({
    queries: [{ startTimestampMs: BigInt(startMs), endTimestampMs: BigInt(endMs), matchers }],
    acceptedResponseTypes: [type],
  }).finish()));
  const res = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'Content-Encoding': 'snappy', 'Content-Type': 'application/x-protobuf', 'X-Prometheus-Remote-Read-Version': '0.1.0' },
    signal: AbortSignal.timeout(30_000),
  });
  const answer = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`POST ${url}: ${res.status} ${answer.toString().slice(0, 500)}`);
  const contentType = res.headers.get('content-type') ?? '';
  const out: ReadSeries[] = [];
  if (type === ReadRequest_ResponseType.SAMPLES) {
    const decoded = ReadResponse.decode(uncompressSync(answer) as Buffer);
    for (const r of decoded.results) {
      for (const s of r.timeseries) {
        const samples: string[] = [];
        for (const x of s.samples) {
          f64[0] = x.value;
          if (x.timestamp >= BigInt(startMs) && x.timestamp <= BigInt(endMs)) samples.push(`${x.timestamp}:${u64[0]!.toString(16)}`);
        }
        out.push({ labels: labelKey(s.labels), samples });
      }
    }
    return out;
  }
  if (!contentType.startsWith('application/x-streamed-protobuf')) throw new Error(`POST ${url}: asked for streamed chunks, got content-type ${contentType}`);
  let at = 0;
  while (at < answer.length) {
    let len = 0;
    let shift = 0;
    for (;;) {
      const b = answer[at++]!;
      len += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (b < 0x80) break;
    }
    const crc = answer.readUInt32BE(at);
    const message = answer.subarray(at + 4, at + 4 + len);
    at += 4 + len;
    if (crc32c(message) !== crc) throw new Error(`POST ${url}: frame at byte ${at - 4 - len} fails its CRC32C`);
    for (const s of ChunkedReadResponse.decode(message).chunkedSeries) {
      const key = labelKey(s.labels);
      // A series may span several frames; its chunks then continue the same entry.
      let entry = out[out.length - 1];
      if (entry === undefined || entry.labels !== key) {
        entry = { labels: key, samples: [] };
        out.push(entry);
      }
      for (const c of s.chunks) {
        if (c.type !== Chunk_Encoding.XOR) throw new Error(`POST ${url}: chunk of type ${c.type}, expected XOR`);
        const { timestamps, values } = codec.decode(c.data);
        const bits = new BigUint64Array(values.buffer, values.byteOffset, values.length);
        for (let i = 0; i < timestamps.length; i++) {
          const t = timestamps[i]!;
          if (t >= BigInt(startMs) && t <= BigInt(endMs)) entry.samples.push(`${t}:${bits[i]!.toString(16)}`);
        }
      }
    }
  }
  return out;
}
