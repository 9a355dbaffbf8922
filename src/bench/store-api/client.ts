/**
 * Store API calls for the load tester, through grpc-js with the generated
 * request encoders (src/gen/thanos) but answers kept as raw bytes: a
 * Series frame is only scanned (which field it carries; a series' label
 * bytes, to tell a new series from the next frame of the same one; its
 * chunk count), never decoded into objects, so the client costs little of
 * the machine it shares with the server. LabelNames and LabelValues
 * answers are small and decoded.
 */
import * as grpc from '@grpc/grpc-js';
import { LabelNamesResponse, LabelValuesResponse, StoreService, type LabelNamesRequest, type LabelValuesRequest, type SeriesRequest } from '../../gen/thanos/store/rpc.js';
import { readUvarint, type VarintRead } from '../../encoding/varint.js';
import type { Outcome } from '../run/answers.js';
import type { GrpcClientTls } from './options.js';

export interface CallResult {
  outcome: Outcome;
  series: number;
  frames: number;
  chunks: number;
  /** LabelNames and LabelValues: names or values answered. */
  values: number;
  bytes: number;
}

const raw = (b: Buffer): Buffer => b;
const statusName = (code: number): string => grpc.status[code] ?? `code ${code}`;

/**
 * Plaintext without `tls`; else TLS with its CA (the system's CAs when
 * absent), client certificate and server name. Throws only for TLS
 * material Node's TLS refuses, which the flag checks have let through.
 */
export function credentialsOf(tls: GrpcClientTls | undefined): grpc.ChannelCredentials {
  if (tls === undefined) return grpc.credentials.createInsecure();
  return grpc.credentials.createSsl(tls.ca ?? null, tls.key ?? null, tls.cert ?? null, tls.skipVerify ? { rejectUnauthorized: false } : {});
}

export function connect(addr: string, tls?: GrpcClientTls): grpc.Client {
  return new grpc.Client(addr, credentialsOf(tls), {
    'grpc.max_receive_message_length': -1,
    // One connection carries every call (HTTP/2 streams), as Thanos Query's does.
    'grpc.use_local_subchannel_pool': 1,
    // grpc-js checks the certificate against this name and sends it as SNI.
    ...(tls?.serverName === undefined ? {} : { 'grpc.ssl_target_name_override': tls.serverName }),
  });
}

const field: VarintRead = { value: 0, next: 0 };

/**
 * Scans a SeriesResponse: field 1 series (Series { labels = 1, chunks = 2 }),
 * 2 warning, 3 hints. Returns the label bytes' range and chunk count of a
 * series frame, or undefined for other frames.
 */
export function scanSeriesFrame(b: Buffer): { labelsStart: number; labelsEnd: number; chunks: number } | undefined {
  if (b.length === 0 || b[0] !== 0x0a) return undefined;
  readUvarint(b, 1, b.length, field);
  // A length that cannot be read leaves nothing to scan.
  let at = field.next < 0 ? b.length : field.next;
  const end = Math.min(b.length, at + field.value);
  const labelsStart = at;
  let labelsEnd = at;
  let chunks = 0;
  // Bounded by the frame's length: each turn moves past one field.
  while (at < end) {
    const tag = b[at]!;
    if ((tag & 7) !== 2) break; // Series has only length-delimited fields
    if (readUvarint(b, at + 1, b.length, field).next < 0) break;
    at = field.next + field.value;
    if (tag === 0x0a) labelsEnd = at;
    else if (tag === 0x12) chunks++;
  }
  return { labelsStart, labelsEnd, chunks };
}

/** One Series call; `onCall` gets the call so that it can be cancelled. */
export function seriesCall(client: grpc.Client, request: SeriesRequest, timeoutMs: number, onCall?: (call: grpc.ClientReadableStream<Buffer>) => void): Promise<CallResult> {
  const def = StoreService.series;
  return new Promise((resolve) => {
    const call = client.makeServerStreamRequest<SeriesRequest, Buffer>(def.path, def.requestSerialize, raw, request, new grpc.Metadata(), { deadline: Date.now() + timeoutMs });
    onCall?.(call);
    const r: CallResult = { outcome: { kind: 'ok' }, series: 0, frames: 0, chunks: 0, values: 0, bytes: 0 };
    let previous: Buffer | undefined;
    call.on('data', (frame: Buffer) => {
      r.frames++;
      r.bytes += frame.length;
      const s = scanSeriesFrame(frame);
      if (s === undefined) return;
      r.chunks += s.chunks;
      const labels = frame.subarray(s.labelsStart, s.labelsEnd);
      // A series split over frames repeats its labels: count it once.
      if (previous === undefined || !previous.equals(labels)) r.series++;
      previous = labels;
    });
    call.on('error', (err: grpc.ServiceError) => {
      r.outcome = err.code === grpc.status.CANCELLED ? { kind: 'aborted' } : { kind: 'grpc', code: statusName(err.code), message: err.details || err.message };
    });
    call.on('status', () => resolve(r));
  });
}

function unary<Req>(client: grpc.Client, def: { path: string; requestSerialize: (v: Req) => Buffer }, request: Req, timeoutMs: number, count: (b: Buffer) => number, onCall?: (call: grpc.ClientUnaryCall) => void): Promise<CallResult> {
  return new Promise((resolve) => {
    const call = client.makeUnaryRequest<Req, Buffer>(def.path, def.requestSerialize, raw, request, new grpc.Metadata(), { deadline: Date.now() + timeoutMs }, (err, answer) => {
      if (err) {
        const outcome: Outcome = err.code === grpc.status.CANCELLED ? { kind: 'aborted' } : { kind: 'grpc', code: statusName(err.code), message: err.details || err.message };
        return resolve({ outcome, series: 0, frames: 0, chunks: 0, values: 0, bytes: 0 });
      }
      const b = answer ?? Buffer.alloc(0);
      resolve({ outcome: { kind: 'ok' }, series: 0, frames: 1, chunks: 0, values: count(b), bytes: b.length });
    });
    onCall?.(call);
  });
}

export function labelNamesCall(client: grpc.Client, request: LabelNamesRequest, timeoutMs: number, onCall?: (call: grpc.ClientUnaryCall) => void): Promise<CallResult> {
  return unary(client, StoreService.labelNames, request, timeoutMs, (b) => LabelNamesResponse.decode(b).names.length, onCall);
}

export function labelValuesCall(client: grpc.Client, request: LabelValuesRequest, timeoutMs: number, onCall?: (call: grpc.ClientUnaryCall) => void): Promise<CallResult> {
  return unary(client, StoreService.labelValues, request, timeoutMs, (b) => LabelValuesResponse.decode(b).values.length, onCall);
}
