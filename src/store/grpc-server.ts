import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import type { Db } from '../db/db.js';
import type { CodecPool } from '../pool/codec-pool.js';
import { StoreService, WriteableStoreService, WriteResponse } from '../gen/thanos/store/rpc.js';
import type { SeriesRequest } from '../gen/thanos/store/rpc.js';
import { InfoService } from '../gen/thanos/info/rpc.js';
import { instantiateHeadWasm } from '../head/head-wasm.js';
import { grpcStatusOf } from './error-status.js';
import { remoteWrite } from './remote-write.js';
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
  const unary = <Req, Res>(fn: (req: Req) => Res | Promise<Res>): grpc.handleUnaryCall<Req, Res> => (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request))
      .then((res) => callback(null, res), (err: unknown) => callback(fail(err)));
  };

  // Series frames are encoded already: a pass-through serializer sends them as they are.
  const storeDefinition = { ...StoreService, series: { ...StoreService.series, responseSerialize: passThrough } };
  server.addService(storeDefinition as unknown as grpc.ServiceDefinition, storeHandlers(api, unary, fail));

  server.addService({
    remoteWrite: { ...WriteableStoreService.remoteWrite, requestDeserialize: passThrough },
  } as unknown as grpc.ServiceDefinition, {
    remoteWrite: (call: grpc.ServerUnaryCall<Buffer, WriteResponse>, callback: grpc.sendUnaryData<WriteResponse>) => {
      remoteWrite(db, pool, call.request, { dialect: 'thanos', tenantLabel: opts.store.tenantLabel }).then((outcome) => {
        if (outcome.error !== undefined) callback(fail(outcome.error));
        else callback(null, {});
      }, (err: unknown) => callback(fail(err)));
    },
  });

  server.addService(InfoService, { info: unary(() => api.infoService()) } as grpc.UntypedServiceImplementation);

  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  health.addToServer(server);
  const definitions = protoLoader.loadSync(
    ['thanos/store/rpc.proto', 'thanos/info/rpc.proto'],
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
  unary: <Req, Res>(fn: (req: Req) => Res | Promise<Res>) => grpc.handleUnaryCall<Req, Res>,
  fail: (err: unknown) => grpc.ServiceError,
): grpc.UntypedServiceImplementation {
  return {
    info: unary(() => api.info()),
    labelNames: unary((req) => api.labelNames(req as Parameters<StoreApi['labelNames']>[0])),
    labelValues: unary((req) => api.labelValues(req as Parameters<StoreApi['labelValues']>[0])),
    series: (call: grpc.ServerWritableStream<SeriesRequest, Buffer>) => {
      let cancelled = false;
      call.on('cancelled', () => { cancelled = true; });
      const send = (frame: Buffer): Promise<void> => {
        if (cancelled) return Promise.reject(new Error('cancelled by the client'));
        if (call.write(frame)) return Promise.resolve();
        return new Promise((done) => call.once('drain', done));
      };
      api.series(call.request, send).then(() => call.end(), (err: unknown) => {
        if (!cancelled) call.destroy(fail(err));
      });
    },
  };
}

function credentials(tls: GrpcTls | undefined): grpc.ServerCredentials {
  if (tls === undefined) return grpc.ServerCredentials.createInsecure();
  const ca = tls.clientCa === undefined ? null : readFileSync(tls.clientCa);
  return grpc.ServerCredentials.createSsl(ca, [{ private_key: readFileSync(tls.key), cert_chain: readFileSync(tls.cert) }], ca !== null);
}
