/**
 * A Thanos Query-like client of thanos.Exemplars/Exemplars and
 * thanos.Metadata/MetricMetadata, built with @grpc/proto-loader from the
 * project's .proto files (not the generated code, not the server's code).
 * int64 fields travel as decimal strings.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadSync, type MethodDefinition } from '@grpc/proto-loader';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const defs = loadSync(['thanos/exemplars/rpc.proto', 'thanos/metadata/rpc.proto'], {
  keepCase: true, longs: String, enums: Number, defaults: true, oneofs: true,
  includeDirs: [join(root, 'proto'), join(root, 'node_modules', 'protoc', 'include')],
});

function method(service: string, name: string): MethodDefinition<object, object> {
  const m = (defs[service] as Record<string, MethodDefinition<object, object>> | undefined)?.[name];
  if (!m) throw new Error(`${service}/${name} is not in the loaded protos`);
  return m;
}

type ZLabelSet = { labels: Array<{ name: string; value: string }> };

export interface ExemplarData {
  seriesLabels: ZLabelSet;
  exemplars: Array<{ labels: ZLabelSet; value: number; ts: string }>;
}

export interface StreamAnswer<T> {
  code: number;
  details: string;
  messages: T[];
}

function stream<T>(address: string, service: string, name: string, request: object): Promise<StreamAnswer<T>> {
  const m = method(service, name);
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    const messages: T[] = [];
    const call = client.makeServerStreamRequest(
      m.path, m.requestSerialize as (r: object) => Buffer, m.responseDeserialize as (b: Buffer) => T,
      request, new grpc.Metadata(), { deadline: Date.now() + 20_000 },
    );
    let settled = false;
    const settle = (a: StreamAnswer<T>): void => {
      if (settled) return;
      settled = true;
      client.close();
      resolve(a);
    };
    call.on('data', (msg: T) => messages.push(msg));
    call.on('error', (err: grpc.ServiceError) => settle({ code: err.code, details: err.details, messages }));
    call.on('end', () => settle({ code: grpc.status.OK, details: '', messages }));
  });
}

/** /thanos.Exemplars/Exemplars: the series answered (warnings dropped). */
export async function exemplarsCall(address: string, request: { query: string; start: bigint; end: bigint }): Promise<StreamAnswer<ExemplarData>> {
  const a = await stream<{ result?: string; data?: ExemplarData }>(address, 'thanos.Exemplars', 'Exemplars', {
    query: request.query, start: String(request.start), end: String(request.end),
  });
  return { ...a, messages: a.messages.filter((m) => m.result === 'data').map((m) => m.data!) };
}

/** /thanos.Metadata/MetricMetadata: the metadata maps answered. */
export async function metadataCall(address: string, request: { metric?: string; limit: number }): Promise<StreamAnswer<Record<string, { metas: Array<{ type: string; help: string; unit: string }> }>>> {
  const a = await stream<{ result?: string; metadata?: { metadata: Record<string, { metas: Array<{ type: string; help: string; unit: string }> }> } }>(
    address, 'thanos.Metadata', 'MetricMetadata', { metric: request.metric ?? '', limit: request.limit },
  );
  return { ...a, messages: a.messages.filter((m) => m.result === 'metadata').map((m) => m.metadata!.metadata) };
}
