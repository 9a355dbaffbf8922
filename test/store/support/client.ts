/**
 * A Thanos-like gRPC client for the Store API, built with @grpc/grpc-js and
 * @grpc/proto-loader from the project's .proto files (not the generated
 * code, not the server's code), so that the suite judges the server the
 * way a Thanos client would.
 *
 * int64 fields travel as decimal strings (proto-loader `longs: String`) in
 * both directions; compare them with BigInt. Series frames are received as
 * raw bytes first (to measure each frame's size) and decoded afterwards.
 * RemoteWrite takes bytes made by ./write-request.ts.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadSync, type MethodDefinition, type PackageDefinition } from '@grpc/proto-loader';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);

/** grpc-health-check's own copy of grpc/health/v1/health.proto. */
const healthProto = (require('grpc-health-check') as { protoPath: string }).protoPath;
/** @grpc/reflection's copies of the reflection protos (build/src/index.js -> build/proto). */
const reflectionProtoDir = join(dirname(require.resolve('@grpc/reflection')), '..', 'proto');

const loaderOptions = { keepCase: true, longs: String, enums: Number, defaults: true, oneofs: true } as const;

const defs: PackageDefinition = loadSync(
  ['thanos/store/rpc.proto', 'thanos/store/hints.proto', 'thanos/info/rpc.proto'],
  { ...loaderOptions, includeDirs: [join(root, 'proto'), join(root, 'node_modules', 'protoc', 'include')] },
);
const healthDefs: PackageDefinition = loadSync(healthProto, loaderOptions);
const reflectionDefs: PackageDefinition = loadSync(
  ['grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'],
  { ...loaderOptions, includeDirs: [reflectionProtoDir] },
);

function method(pkg: PackageDefinition, service: string, name: string): MethodDefinition<object, object> {
  const m = (pkg[service] as Record<string, MethodDefinition<object, object>> | undefined)?.[name];
  if (!m) throw new Error(`${service}/${name} is not in the loaded protos`);
  return m;
}

// ---------------------------------------------------------------- messages

export interface Label {
  name: string;
  value: string;
}

export interface Chunk {
  type: number;
  data: Buffer;
  hash: string;
}

export interface AggrChunk {
  min_time: string;
  max_time: string;
  raw: Chunk | null;
  count: Chunk | null;
  sum: Chunk | null;
  min: Chunk | null;
  max: Chunk | null;
  counter: Chunk | null;
}

export interface Series {
  labels: Label[];
  chunks: AggrChunk[];
}

export const MatcherType = { EQ: 0, NEQ: 1, RE: 2, NRE: 3 } as const;
export const Strategy = { WARN: 0, ABORT: 1 } as const;
export const Aggr = { RAW: 0, COUNT: 1, SUM: 2, MIN: 3, MAX: 4, COUNTER: 5 } as const;
export const StoreType = { UNKNOWN: 0, QUERY: 1, RULE: 2, SIDECAR: 3, STORE: 4, RECEIVE: 5, DEBUG: 6 } as const;
export const XOR = 0;

export interface Matcher {
  type: number;
  name: string;
  value: string;
}

/** Matcher shorthands: eq('job', 'a') is {job="a"}. */
export const eq = (name: string, value: string): Matcher => ({ type: MatcherType.EQ, name, value });
export const neq = (name: string, value: string): Matcher => ({ type: MatcherType.NEQ, name, value });
export const re = (name: string, value: string): Matcher => ({ type: MatcherType.RE, name, value });
export const nre = (name: string, value: string): Matcher => ({ type: MatcherType.NRE, name, value });

export interface AnyMessage {
  type_url: string;
  value: Buffer;
}

/** thanos.SeriesRequest (snake_case field names as in the .proto; int64 as strings). */
export interface SeriesRequest {
  min_time?: string;
  max_time?: string;
  matchers?: Matcher[];
  max_resolution_window?: string;
  aggregates?: number[];
  partial_response_disabled?: boolean;
  partial_response_strategy?: number;
  skip_chunks?: boolean;
  hints?: AnyMessage;
  step?: string;
  range?: string;
  query_hints?: {
    step_millis?: string;
    func?: { name: string };
    grouping?: { by: boolean; labels: string[] };
    range?: { millis: string };
  };
  shard_info?: { shard_index: string; total_shards: string; by: boolean; labels: string[] };
  without_replica_labels?: string[];
  limit?: string;
}

/** One decoded frame of a Series stream, with the size of its message bytes. */
export interface Frame {
  bytes: number;
  result: 'series' | 'warning' | 'hints' | undefined;
  series?: Series;
  warning?: string;
  hints?: AnyMessage;
}

export interface SeriesAnswer {
  /** 0 (OK) or the gRPC status code the stream ended with. */
  code: number;
  details: string;
  frames: Frame[];
}

export interface LabelNamesRequest {
  partial_response_strategy?: number;
  start?: string;
  end?: string;
  matchers?: Matcher[];
  without_replica_labels?: string[];
  limit?: string;
  hints?: AnyMessage;
}

export interface LabelValuesRequest extends LabelNamesRequest {
  label: string;
}

export interface LabelNamesResponse {
  names: string[];
  warnings: string[];
  hints: AnyMessage | null;
}

export interface LabelValuesResponse {
  values: string[];
  warnings: string[];
  hints: AnyMessage | null;
}

export interface StoreInfoResponse {
  labels: Label[];
  min_time: string;
  max_time: string;
  storeType: number;
  label_sets: { labels: Label[] }[];
}

export interface InfoResponse {
  label_sets: { labels: Label[] }[];
  ComponentType: string;
  store: {
    min_time: string;
    max_time: string;
    supports_sharding: boolean;
    supports_without_replica_labels: boolean;
    tsdb_infos: unknown[];
  } | null;
  rules: object | null;
  metric_metadata: object | null;
  targets: object | null;
  exemplars: object | null;
  query: object | null;
}

/** A unary answer: the decoded response when code is 0. */
export interface Answer<T> {
  code: number;
  details: string;
  response?: T;
}

/** A SeriesRequest's bytes, as the client sends them. */
export function encodeSeriesRequest(request: SeriesRequest): Buffer {
  return (method(defs, 'thanos.Store', 'Series').requestSerialize as (r: SeriesRequest) => Buffer)(request);
}

/** One Series frame decoded from its message bytes. */
export function decodeSeriesFrame(raw: Buffer): Frame {
  const decode = method(defs, 'thanos.Store', 'Series').responseDeserialize as (b: Buffer) => {
    result?: Frame['result']; series?: Series; warning?: string; hints?: AnyMessage;
  };
  const msg = decode(raw);
  const frame: Frame = { bytes: raw.length, result: msg.result };
  if (msg.result === 'series' && msg.series) frame.series = msg.series;
  if (msg.result === 'warning') frame.warning = msg.warning ?? '';
  if (msg.result === 'hints' && msg.hints) frame.hints = msg.hints;
  return frame;
}

/**
 * The client's own encoding of a request and decoding of an answer, for
 * in-process stores (test/store/acceptance): what they are given and
 * answer is exactly what would cross the wire.
 */
export const wire = {
  encodeRequest(service: 'thanos.Store' | 'thanos.info.Info', name: string, request: object): Buffer {
    return (method(defs, service, name).requestSerialize as (r: object) => Buffer)(request);
  },
  decodeResponse<T>(service: 'thanos.Store' | 'thanos.info.Info', name: string, bytes: Uint8Array): T {
    return (method(defs, service, name).responseDeserialize as (b: Buffer) => T)(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  },
};

// ---------------------------------------------------------------- client

/** Deadline of an ordinary call. */
const CALL_DEADLINE_MS = 20_000;

export interface ClientOptions {
  /** Channel credentials; insecure by default. */
  credentials?: grpc.ChannelCredentials;
  /** Extra channel options, e.g. 'grpc.ssl_target_name_override'. */
  channelOptions?: grpc.ChannelOptions;
}

const identity = (b: Buffer) => b;

function statusOf(err: unknown): { code: number; details: string } {
  const e = err as Partial<grpc.ServiceError>;
  return { code: typeof e.code === 'number' ? e.code : grpc.status.UNKNOWN, details: e.details ?? String(err) };
}

/** A client of one Strata process: Store, WriteableStore, info, health and reflection. */
export class StoreClient {
  private readonly client: grpc.Client;

  constructor(readonly address: string, options: ClientOptions = {}) {
    this.client = new grpc.Client(address, options.credentials ?? grpc.credentials.createInsecure(), {
      // Frames of about 1 MiB are expected; measure rather than refuse bigger ones.
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      ...options.channelOptions,
    });
  }

  close(): void {
    this.client.close();
  }

  private unary<Res>(pkg: PackageDefinition, service: string, name: string, request: object | Buffer, deadlineMs = CALL_DEADLINE_MS): Promise<Answer<Res>> {
    const m = method(pkg, service, name);
    const serialize = Buffer.isBuffer(request) ? identity : (m.requestSerialize as (r: object) => Buffer);
    return new Promise((resolve) => {
      this.client.makeUnaryRequest(
        m.path,
        serialize as (r: object | Buffer) => Buffer,
        m.responseDeserialize as (b: Buffer) => Res,
        request,
        new grpc.Metadata(),
        { deadline: Date.now() + deadlineMs },
        (err, response) => {
          if (err) resolve(statusOf(err));
          else resolve({ code: grpc.status.OK, details: '', response: response as Res });
        },
      );
    });
  }

  /** /thanos.WriteableStore/RemoteWrite with request bytes from encodeWriteRequest(). */
  remoteWrite(request: Buffer, deadlineMs = CALL_DEADLINE_MS): Promise<Answer<object>> {
    return this.unary(defs, 'thanos.WriteableStore', 'RemoteWrite', request, deadlineMs);
  }

  /** /thanos.Store/Series, every frame collected; never rejects (errors come as `code`). */
  series(request: SeriesRequest, options: { deadlineMs?: number; onCall?: (call: grpc.ClientReadableStream<Buffer>) => void } = {}): Promise<SeriesAnswer> {
    const m = method(defs, 'thanos.Store', 'Series');
    return new Promise((resolve) => {
      const frames: Frame[] = [];
      const call = this.client.makeServerStreamRequest(
        m.path,
        m.requestSerialize as (r: SeriesRequest) => Buffer,
        identity,
        request,
        new grpc.Metadata(),
        { deadline: Date.now() + (options.deadlineMs ?? CALL_DEADLINE_MS) },
      );
      let settled = false;
      const settle = (a: SeriesAnswer) => {
        if (!settled) {
          settled = true;
          resolve(a);
        }
      };
      call.on('data', (raw: Buffer) => frames.push(decodeSeriesFrame(raw)));
      call.on('error', (err) => settle({ ...statusOf(err), frames }));
      // An OK stream settles on 'end', after its last 'data' (a paused stream's 'status' may come earlier).
      call.on('end', () => settle({ code: 0, details: '', frames }));
      options.onCall?.(call as grpc.ClientReadableStream<Buffer>);
    });
  }

  labelNames(request: LabelNamesRequest): Promise<Answer<LabelNamesResponse>> {
    return this.unary(defs, 'thanos.Store', 'LabelNames', request);
  }

  labelValues(request: LabelValuesRequest): Promise<Answer<LabelValuesResponse>> {
    return this.unary(defs, 'thanos.Store', 'LabelValues', request);
  }

  /** The deprecated /thanos.Store/Info. */
  storeInfo(): Promise<Answer<StoreInfoResponse>> {
    return this.unary(defs, 'thanos.Store', 'Info', {});
  }

  /** /thanos.info.Info/Info, which Thanos Query calls first. */
  info(): Promise<Answer<InfoResponse>> {
    return this.unary(defs, 'thanos.info.Info', 'Info', {});
  }

  /** grpc.health.v1.Health/Check; status SERVING is 1. */
  health(service = ''): Promise<Answer<{ status: number }>> {
    return this.unary(healthDefs, 'grpc.health.v1.Health', 'Check', { service });
  }

  /**
   * One request on grpc.reflection.{version}.ServerReflection/ServerReflectionInfo
   * (a bidirectional stream); resolves with the first response.
   */
  reflect(version: 'v1' | 'v1alpha', request: object): Promise<Answer<ReflectionResponse>> {
    const m = method(reflectionDefs, `grpc.reflection.${version}.ServerReflection`, 'ServerReflectionInfo');
    return new Promise((resolve) => {
      const call = this.client.makeBidiStreamRequest(
        m.path,
        m.requestSerialize as (r: object) => Buffer,
        m.responseDeserialize as (b: Buffer) => ReflectionResponse,
        new grpc.Metadata(),
        { deadline: Date.now() + CALL_DEADLINE_MS },
      );
      let settled = false;
      call.on('data', (response: ReflectionResponse) => {
        if (settled) return;
        settled = true;
        resolve({ code: 0, details: '', response });
        call.end();
      });
      call.on('error', (err) => {
        if (!settled) {
          settled = true;
          resolve(statusOf(err));
        }
      });
      call.on('status', () => {
        if (!settled) {
          settled = true;
          resolve({ code: grpc.status.UNKNOWN, details: 'reflection stream ended without an answer' });
        }
      });
      call.write(request);
    });
  }
}

export interface ReflectionResponse {
  message_response?: string;
  list_services_response?: { service: { name: string }[] } | null;
  file_descriptor_response?: { file_descriptor_proto: Buffer[] } | null;
  error_response?: { error_code: number; error_message: string } | null;
}

export { grpc };
