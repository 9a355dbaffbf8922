/**
 * grpc.health.v1.Health (Check, Watch, List), with its three small
 * messages encoded here. It replaces the grpc-health-check package, whose
 * import loads @grpc/proto-loader and protobufjs and parses its .proto:
 * about 0.1 s of every start's CPU, on the path to ready (issue 29).
 * Behaviour as that package and the gRPC health checking protocol
 * (doc/health-checking.md in grpc/grpc): Check answers NOT_FOUND for a
 * service it does not know; Watch sends the current status at once
 * (SERVICE_UNKNOWN for an unknown service), then every change, until the
 * caller cancels; List answers every service.
 */
import type * as grpc from '@grpc/grpc-js';
import { WIRE, WireReader } from '../encoding/wire-reader.js';
import { putUvarint, uvarintSize } from '../encoding/varint.js';

/** HealthCheckResponse.ServingStatus. */
export const SERVING = 1;
export const NOT_SERVING = 2;
const SERVICE_UNKNOWN = 3;
const NOT_FOUND = 5;

export type ServingStatus = typeof SERVING | typeof NOT_SERVING;

interface CheckRequest {
  service: string;
}
interface CheckResponse {
  status: number;
}

/** HealthCheckRequest: `string service = 1`; other fields skipped. */
function decodeRequest(b: Buffer): CheckRequest {
  const r = new WireReader(b);
  let service = '';
  while (r.pos < b.length) {
    const tag = r.tag(b.length);
    if (tag === ((1 << 3) | WIRE.len)) {
      const end = r.len(b.length);
      service = b.toString('utf8', r.pos, end);
      r.pos = end;
    } else r.skip(tag & 7, b.length);
  }
  return { service };
}

function encodeRequest(m: CheckRequest): Buffer {
  const text = Buffer.from(m.service, 'utf8');
  if (text.length === 0) return Buffer.alloc(0);
  const out = Buffer.alloc(1 + uvarintSize(text.length) + text.length);
  out[0] = (1 << 3) | WIRE.len;
  text.copy(out, putUvarint(out, 1, text.length));
  return out;
}

/** HealthCheckResponse: `ServingStatus status = 1` (absent when 0, as proto3 writes it). */
function encodeResponse(m: CheckResponse): Buffer {
  return m.status === 0 ? Buffer.alloc(0) : Buffer.from([(1 << 3) | WIRE.varint, m.status]);
}

function decodeResponse(b: Buffer): CheckResponse {
  const r = new WireReader(b);
  let status = 0;
  while (r.pos < b.length) {
    const tag = r.tag(b.length);
    if (tag === ((1 << 3) | WIRE.varint)) status = r.uint32(b.length, 'status');
    else r.skip(tag & 7, b.length);
  }
  return { status };
}

/** HealthListResponse: `map<string, HealthCheckResponse> statuses = 1`, an entry per service (key 1, value 2). */
function encodeList(statuses: Map<string, number>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, status] of statuses) {
    const key = Buffer.from(name, 'utf8');
    const value = encodeResponse({ status });
    const entryLen = 1 + uvarintSize(key.length) + key.length + 1 + uvarintSize(value.length) + value.length;
    const entry = Buffer.alloc(1 + uvarintSize(entryLen) + entryLen);
    let at = 0;
    entry[at++] = (1 << 3) | WIRE.len;
    at = putUvarint(entry, at, entryLen);
    entry[at++] = (1 << 3) | WIRE.len;
    at = putUvarint(entry, at, key.length);
    at += key.copy(entry, at);
    entry[at++] = (2 << 3) | WIRE.len;
    at = putUvarint(entry, at, value.length);
    value.copy(entry, at);
    parts.push(entry);
  }
  return Buffer.concat(parts);
}

const PATH = '/grpc.health.v1.Health/';
const none = (): Buffer => Buffer.alloc(0);
const listStatuses = (b: Buffer): Buffer => b;

/** The service's methods as grpc-js takes them. */
export const HEALTH_SERVICE = {
  check: {
    path: `${PATH}Check`, requestStream: false, responseStream: false, originalName: 'Check',
    requestSerialize: encodeRequest, requestDeserialize: decodeRequest, responseSerialize: encodeResponse, responseDeserialize: decodeResponse,
  },
  watch: {
    path: `${PATH}Watch`, requestStream: false, responseStream: true, originalName: 'Watch',
    requestSerialize: encodeRequest, requestDeserialize: decodeRequest, responseSerialize: encodeResponse, responseDeserialize: decodeResponse,
  },
  list: {
    path: `${PATH}List`, requestStream: false, responseStream: false, originalName: 'List',
    requestSerialize: none, requestDeserialize: none, responseSerialize: encodeList, responseDeserialize: listStatuses,
  },
} as unknown as grpc.ServiceDefinition;

/** Serving statuses by service name ('' is the server as a whole), served as grpc.health.v1.Health. */
export class Health {
  private readonly statuses = new Map<string, number>();
  private readonly watchers = new Map<string, Set<(status: number) => void>>();

  constructor(initial: Record<string, ServingStatus> = {}) {
    for (const [name, status] of Object.entries(initial)) this.statuses.set(name, status);
  }

  /** Sets `service`'s status and tells its watchers. */
  setStatus(service: string, status: ServingStatus): void {
    this.statuses.set(service, status);
    for (const w of this.watchers.get(service) ?? []) w(status);
  }

  addToServer(server: grpc.Server): void {
    server.addService(HEALTH_SERVICE, {
      check: (call: grpc.ServerUnaryCall<CheckRequest, CheckResponse>, callback: grpc.sendUnaryData<CheckResponse>) => {
        const status = this.statuses.get(call.request.service);
        if (status !== undefined) callback(null, { status });
        else callback({ code: NOT_FOUND, details: `Health status unknown for service ${call.request.service}` });
      },
      watch: (call: grpc.ServerWritableStream<CheckRequest, CheckResponse>) => {
        const name = call.request.service;
        const send = (status: number): void => {
          call.write({ status });
        };
        let set = this.watchers.get(name);
        if (set === undefined) this.watchers.set(name, (set = new Set()));
        set.add(send);
        call.on('cancelled', () => set.delete(send));
        send(this.statuses.get(name) ?? SERVICE_UNKNOWN);
      },
      list: (_call: grpc.ServerUnaryCall<Buffer, Map<string, number>>, callback: grpc.sendUnaryData<Map<string, number>>) => {
        callback(null, new Map(this.statuses));
      },
    } as grpc.UntypedServiceImplementation);
  }
}
