import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import type { Db } from '../db/db.js';
import type { CodecPool } from '../pool/codec-pool.js';
import { StoreService, WriteableStoreService, WriteResponse } from '../gen/thanos/store/rpc.js';
import type { LabelNamesRequest, LabelValuesRequest, SeriesRequest } from '../gen/thanos/store/rpc.js';
import { performance } from 'node:perf_hooks';
import { InfoService } from '../gen/thanos/info/rpc.js';
import { instantiateHeadWasm } from '../head/head-wasm.js';
import { grpcStatusOf } from './error-status.js';
import { remoteWrite } from './remote-write.js';
import { batchWrites } from './batched-writes.js';
import { CallSink, Http2Sink } from './series-sink.js';
import type { SeriesSink } from './series-sink.js';
import { StoreApi } from './store-api.js';
import type { StoreApiConfig } from './store-api.js';

export interface GrpcTls {
  cert: string;
  key: string;
  /** When given, clients must present a certificate signed by this CA. */
  clientCa?: string;
}

export interface GrpcServerOptions {
  host: string;
  port: number;
  maxRecvBytes: number;
  tls?: GrpcTls;
  store: StoreApiConfig;
  log: { info(o: object, msg: string): void; warn(o: object, msg: string): void; error(o: object, msg: string): void };
  /** Told of every finished call: method path, gRPC status code, seconds taken (for metrics). */
  onCall?: (method: string, code: grpc.status, seconds: number) => void;
}

export interface RunningGrpcServer {
  port: number;
  /** Stops taking calls, lets calls in flight finish (up to `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

const PROTO_DIR = fileURLToPath(new URL('../../proto/', import.meta.url));
const SERVICES = ['thanos.Store', 'thanos.WriteableStore', 'thanos.info.Info', 'grpc.health.v1.Health'];

/** Raw bytes in and out: parsing and encoding are ours (pool work and hand-written frames). */
const passThrough = (b: Buffer): Buffer => b;

/**
 * Serves thanos.Store, thanos.WriteableStore, thanos.info.Info, health and
 * reflection on one gRPC server.
 */
export async function startGrpcServer(db: Db, pool: CodecPool, opts: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': opts.maxRecvBytes,
    'grpc.max_send_message_length': -1,
  });
  const api = new StoreApi(db, opts.store, instantiateHeadWasm());
  const fail = (err: unknown): grpc.ServiceError => {
    const code = grpcStatusOf(err);
    if (code === grpc.status.INTERNAL) opts.log.error({ err }, 'Store API call failed');
    return Object.assign(new Error((err as Error).message), { code, details: (err as Error).message, metadata: new grpc.Metadata() });
  };
  const observe = (method: string, started: number, code: grpc.status): void => {
    opts.onCall?.(method, code, (performance.now() - started) / 1000);
  };
  const unary = <Req, Res>(method: string, fn: (req: Req) => Res | Promise<Res>): grpc.handleUnaryCall<Req, Res> => (call, callback) => {
    const started = performance.now();
    Promise.resolve()
      .then(() => fn(call.request))
      .then((res) => {
        observe(method, started, grpc.status.OK);
        callback(null, res);
      }, (err: unknown) => {
        const e = fail(err);
        observe(method, started, e.code);
        callback(e);
      });
  };

  // Series frames are encoded already: a pass-through serializer sends them as they are.
  const storeDefinition = { ...StoreService, series: { ...StoreService.series, responseSerialize: passThrough } };
  server.addService(storeDefinition as unknown as grpc.ServiceDefinition, storeHandlers(api, unary, fail, observe));

  server.addService({
    remoteWrite: { ...WriteableStoreService.remoteWrite, requestDeserialize: passThrough },
  } as unknown as grpc.ServiceDefinition, {
    remoteWrite: unary(WriteableStoreService.remoteWrite.path, async (bytes: Buffer): Promise<WriteResponse> => {
      const outcome = await remoteWrite(db, pool, bytes, { dialect: 'thanos', tenantLabel: opts.store.tenantLabel });
      if (outcome.error !== undefined) throw outcome.error;
      return {};
    }),
  });

  server.addService(InfoService, { info: unary(InfoService.info.path, () => api.infoService()) } as grpc.UntypedServiceImplementation);

  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  health.addToServer(server);
  const definitions = protoLoader.loadSync(
    ['thanos/store/rpc.proto', 'thanos/info/rpc.proto', healthProtoPath],
    { includeDirs: [PROTO_DIR], keepCase: true },
  );
  new ReflectionService(definitions).addToServer(server);

  const port = await new Promise<number>((done, fail2) => {
    server.bindAsync(`${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`, credentials(opts.tls), (err, p) => (err ? fail2(err) : done(p)));
  });
  for (const s of ['', ...SERVICES]) health.setStatus(s, 'SERVING');

  return {
    port,
    close: (graceMs = 10_000) => new Promise<void>((done) => {
      for (const s of ['', ...SERVICES]) health.setStatus(s, 'NOT_SERVING');
      const timer = setTimeout(() => server.forceShutdown(), graceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        done();
      });
    }),
  };
}

function storeHandlers(
  api: StoreApi,
  unary: <Req, Res>(method: string, fn: (req: Req) => Res | Promise<Res>) => grpc.handleUnaryCall<Req, Res>,
  fail: (err: unknown) => grpc.ServiceError,
  observe: (method: string, started: number, code: grpc.status) => void,
): grpc.UntypedServiceImplementation {
  return {
    info: unary(StoreService.info.path, () => api.info()),
    labelNames: unary(StoreService.labelNames.path, (req: LabelNamesRequest) => api.labelNames(req)),
    labelValues: unary(StoreService.labelValues.path, (req: LabelValuesRequest) => api.labelValues(req)),
    series: (call: grpc.ServerWritableStream<SeriesRequest, Buffer>) => {
      const started = performance.now();
      const stream = call as grpc.ServerWritableStream<unknown, Buffer>;
      let cancelled = false;
      call.on('cancelled', () => { cancelled = true; });
      let sink: SeriesSink | undefined = Http2Sink.of(stream);
      if (sink === undefined) {
        batchWrites(stream);
        sink = new CallSink(stream);
      }
      api.series(call.request, sink).then(() => {
        observe(StoreService.series.path, started, grpc.status.OK);
        call.end();
      }, (err: unknown) => {
        const e = fail(err);
        observe(StoreService.series.path, started, cancelled ? grpc.status.CANCELLED : e.code);
        // A server stream sends its status by emitting the error.
        if (!cancelled) call.emit('error', e);
      });
    },
  };
}

function credentials(tls: GrpcTls | undefined): grpc.ServerCredentials {
  if (tls === undefined) return grpc.ServerCredentials.createInsecure();
  const ca = tls.clientCa === undefined ? null : readFileSync(tls.clientCa);
  return grpc.ServerCredentials.createSsl(ca, [{ private_key: readFileSync(tls.key), cert_chain: readFileSync(tls.cert) }], ca !== null);
}
