import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { Health, NOT_SERVING, SERVING } from './health.js';
import { addReflectionLater } from './reflection.js';
import { StoreService, WriteableStoreService, type WriteResponse } from '../gen/thanos/store/rpc.js';
import type { LabelNamesRequest, LabelNamesResponse, LabelValuesRequest, LabelValuesResponse, SeriesRequest } from '../gen/thanos/store/rpc.js';
import { InfoService } from '../gen/thanos/info/rpc.js';
import { ExemplarsService, type ExemplarsRequest, type ExemplarsResponse } from '../gen/thanos/exemplars/rpc.js';
import { MetadataService, type MetricMetadataRequest, type MetricMetadataResponse } from '../gen/thanos/metadata/rpc.js';
import { ExemplarsApi } from './exemplars-api.js';
import { MetadataApi } from './metadata-api.js';
import { instantiateHeadWasm } from '../wasm/head.js';
import { grpcStatusOf } from '../errors/status.js';
import { widenConnectionWindows, widenStreamWindows } from './flow-control.js';
import { installGrpcSnappy, keepSnappyFramed } from './snappy.js';
import { movableMessage, type MessageBytes } from './message-bytes.js';
import { probeGrpcInternals, seriesSinkFor, type GrpcSeriesSink, type SeriesPath } from './stream-adapter.js';
import { callTimer, type OnCall } from './telemetry.js';
import { takeUnaryStreams } from './raw-unary.js';
import { encodeLabelsResponse } from './label-response.js';
import type { Writer } from '../ingest/writer.js';
import type { StoreApi } from '../store/store-api.js';
import { engineStoreApi, type StoreApiConfig } from '../store/store-stack.js';

export interface GrpcTls {
  cert: string;
  key: string;
  /** When given, clients must present a certificate signed by this CA. */
  clientCa?: string;
}

interface Log {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
  error(o: object, msg: string): void;
}

/** The listener and its surroundings, whatever the Store API behind it. */
export interface StoreServerOptions {
  host: string;
  port: number;
  maxRecvBytes: number;
  tls?: GrpcTls;
  log: Log;
  /** Told of every finished call: method path, gRPC status code, seconds taken (for metrics). */
  onCall?: OnCall;
  /**
   * thanos.WriteableStore/RemoteWrite with the request's message (its bytes
   * yours to move to a worker; see message-bytes.ts); not served when
   * absent (a sidecar).
   */
  remoteWrite?: (message: MessageBytes) => Promise<void>;
  /**
   * Who serves RemoteWrite's HTTP/2 streams: 'raw' (raw-unary.ts, the
   * default) or 'grpc-js' (tests compare the two).
   */
  remoteWritePath?: 'raw' | 'grpc-js';
  /** How Series frames leave (stream-adapter.ts); the fastest this grpc-js allows by default. */
  seriesPath?: SeriesPath;
  /** thanos.Exemplars; not served when absent (the StoreApi's Info says whether it is: store-api.ts OtherApis). */
  exemplars?: ExemplarsApi;
  /** thanos.Metadata; not served when absent (likewise). */
  metadata?: MetadataApi;
}

/** `strata serve`'s gRPC server: the listener, and the engine's Store API configuration. */
export interface GrpcServerOptions extends Omit<StoreServerOptions, 'remoteWrite' | 'remoteWritePath' | 'seriesPath' | 'exemplars' | 'metadata'> {
  store: StoreApiConfig;
}

export interface RunningGrpcServer {
  port: number;
  /** Stops taking calls, lets calls in flight finish (up to `graceMs`), then closes. */
  close(graceMs?: number): Promise<void>;
}

/** Raw bytes in and out: parsing and encoding are ours (pool work and hand-written frames). */
const passThrough = (b: Buffer): Buffer => b;
/** RemoteWrite's answer, an empty thanos.WriteResponse: no fields, no bytes (grpc-js copies it into its frame). */
const EMPTY_MESSAGE = Buffer.alloc(0);
const emptyAnswer = (): Buffer => EMPTY_MESSAGE;

/** How far a snappy RemoteWrite may decode when --grpc-max-recv-bytes sets no bound (-1). */
const MAX_FRAMED_DECODED = 1 << 30;

/**
 * `strata serve`'s gRPC server: the engine's Store API (store-stack.ts)
 * and its RemoteWrite, through the one Writer (src/ingest/writer.ts).
 */
export function startGrpcServer(writer: Writer, opts: GrpcServerOptions): Promise<RunningGrpcServer> {
  const { store, ...server } = opts;
  const db = writer.db;
  return serveStoreApi(engineStoreApi(db, store, instantiateHeadWasm()), {
    ...server,
    exemplars: new ExemplarsApi(() => db.exemplars, store.externalLabels),
    metadata: new MetadataApi(() => db.metadata),
    remoteWrite: async ({ bytes, size, framed }) => {
      const snappy = framed === undefined ? {} : { snappy: { maxDecodedBytes: server.maxRecvBytes < 0 ? MAX_FRAMED_DECODED : server.maxRecvBytes, framed } };
      const outcome = await writer.write(bytes, { dialect: 'thanos', size, ...snappy });
      if (outcome.error !== undefined) throw outcome.error;
    },
  });
}

/**
 * Serves a Store API as thanos.Store and thanos.info.Info (and
 * thanos.WriteableStore when given a remoteWrite), with health and
 * reflection, on one gRPC server. It only adapts: requests decoded by
 * grpc-js, errors mapped by the one table (status.ts), Series frames
 * written by stream-adapter.ts, calls timed for metrics.
 */
/** A bind that failed, as one line naming the address (grpc-js' own message names no cause a person can act on). */
function listenFailed(at: string, err: Error): Error {
  const inUse = /EADDRINUSE|address already in use|No address added/i.test(err.message);
  return Object.assign(new Error(`gRPC: cannot listen on ${at} (${inUse ? 'address in use or not available' : err.message})`, { cause: err }), { code: inUse ? 'EADDRINUSE' : 'EADDRNOTAVAIL' });
}

export async function serveStoreApi(api: StoreApi, opts: StoreServerOptions): Promise<RunningGrpcServer> {
  // grpc-js writes its own lines to stderr (a failed bind: "No address added"),
  // beside the server's JSON log: they go into that log instead, as warnings.
  grpc.setLogger({ error: (...args: unknown[]) => opts.log.warn({ grpc: args.map(String).join(' ') }, 'grpc-js') });
  const server = new grpc.Server({
    'grpc.max_receive_message_length': opts.maxRecvBytes,
    'grpc.max_send_message_length': -1,
  });
  const fail = (err: unknown): grpc.ServiceError => {
    const code = grpcStatusOf(err);
    if (code === grpc.status.INTERNAL) opts.log.error({ err }, 'Store API call failed');
    const message = (err as Error | undefined)?.message ?? String(err);
    return Object.assign(new Error(message), { code, details: message, metadata: new grpc.Metadata() });
  };
  const unary = <Req, Res>(method: string, fn: (req: Req) => Res | Promise<Res>): grpc.handleUnaryCall<Req, Res> => (call, callback) => {
    const done = callTimer(opts.onCall, method);
    Promise.resolve()
      .then(() => fn(call.request))
      .then((res) => {
        done(grpc.status.OK);
        callback(null, res);
      }, (err: unknown) => {
        const e = fail(err);
        done(e.code);
        callback(e);
      });
  };
  let slowPathTold = false;
  const sinkFor = (stream: grpc.ServerWritableStream<unknown, Buffer>): GrpcSeriesSink => {
    const sink = seriesSinkFor(stream, opts.seriesPath);
    if (sink.path !== 'http2' && opts.seriesPath === undefined && !slowPathTold) {
      // test/grpc/stream-adapter.test.ts fails for such a grpc-js; say it where it runs too.
      slowPathTold = true;
      opts.log.warn({ path: sink.path, missing: probeGrpcInternals(stream) }, 'Series answers take a slower path: this grpc-js lacks what src/grpc/stream-adapter.ts relies on');
    }
    return sink;
  };
  const series = (call: grpc.ServerWritableStream<SeriesRequest, Buffer>): void => {
    const done = callTimer(opts.onCall, StoreService.series.path);
    Promise.resolve()
      .then(() => api.series(call.request, sinkFor(call as grpc.ServerWritableStream<unknown, Buffer>)))
      .then(() => {
        done(grpc.status.OK);
        call.end();
      }, (err: unknown) => {
        const cancelled = call.cancelled || grpcStatusOf(err) === grpc.status.CANCELLED;
        const e = fail(err);
        done(cancelled ? grpc.status.CANCELLED : e.code);
        // A server stream sends its status by emitting the error; nobody hears a cancelled one.
        if (!cancelled) call.emit('error', e);
      });
  };

  const services = ['thanos.Store', 'thanos.info.Info', 'grpc.health.v1.Health'];
  // Series frames are encoded already: a pass-through serializer sends them as they are.
  // LabelNames and LabelValues answers (up to 100k strings) are encoded by hand (label-response.ts).
  const storeDefinition = {
    ...StoreService,
    series: { ...StoreService.series, responseSerialize: passThrough },
    labelNames: { ...StoreService.labelNames, responseSerialize: (r: LabelNamesResponse) => encodeLabelsResponse(r.names, r.warnings) },
    labelValues: { ...StoreService.labelValues, responseSerialize: (r: LabelValuesResponse) => encodeLabelsResponse(r.values, r.warnings) },
  };
  server.addService(storeDefinition as unknown as grpc.ServiceDefinition, {
    info: unary(StoreService.info.path, () => api.info()),
    labelNames: unary(StoreService.labelNames.path, (req: LabelNamesRequest) => api.labelNames(req)),
    labelValues: unary(StoreService.labelValues.path, (req: LabelValuesRequest) => api.labelValues(req)),
    series,
  } as grpc.UntypedServiceImplementation);

  const write = opts.remoteWrite;
  if (write !== undefined) {
    services.push('thanos.WriteableStore');
    const path = WriteableStoreService.remoteWrite.path;
    // Snappy-compressed writes (a Receive router's default) are decoded in the pool, not on the event loop.
    keepSnappyFramed(path);
    // The message stays raw bytes (parsed in the pool), made movable without
    // a copy; the answer is the empty WriteResponse's no bytes. No promise
    // chain of its own: at thousands of calls a second the event loop is
    // the stage the pool waits on (bench/RESULTS.md).
    server.addService({
      remoteWrite: { ...WriteableStoreService.remoteWrite, requestDeserialize: movableMessage, responseSerialize: emptyAnswer },
    } as unknown as grpc.ServiceDefinition, {
      remoteWrite: ((call, callback) => {
        const done = callTimer(opts.onCall, path);
        const failed = (err: unknown): void => {
          const e = fail(err);
          done(e.code);
          callback(e);
        };
        let writing: Promise<void>;
        try {
          writing = write(call.request);
        } catch (err) {
          // A remoteWrite that throws before it returns its promise answers like one that rejects.
          failed(err);
          return;
        }
        writing.then(() => {
          done(grpc.status.OK);
          callback(null, {});
        }, failed);
      }) satisfies grpc.handleUnaryCall<MessageBytes, WriteResponse>,
    } as grpc.UntypedServiceImplementation);
  }

  // A server stream answered whole at once (exemplars and metadata are bounded stores).
  const answerAll = <Req, Res>(method: string, fn: (req: Req) => Res[]) => (call: grpc.ServerWritableStream<Req, Res>): void => {
    const done = callTimer(opts.onCall, method);
    let answers: Res[];
    try {
      answers = fn(call.request);
    } catch (err) {
      const e = fail(err);
      done(e.code);
      call.emit('error', e);
      return;
    }
    for (const a of answers) call.write(a);
    done(grpc.status.OK);
    call.end();
  };
  const exemplarsApi = opts.exemplars;
  if (exemplarsApi !== undefined) {
    services.push('thanos.Exemplars');
    server.addService(ExemplarsService, {
      exemplars: answerAll(ExemplarsService.exemplars.path, (req: ExemplarsRequest): ExemplarsResponse[] =>
        exemplarsApi.exemplars(req).map((value) => ({ result: { $case: 'data', value } }))),
    } as grpc.UntypedServiceImplementation);
  }
  const metadataApi = opts.metadata;
  if (metadataApi !== undefined) {
    services.push('thanos.Metadata');
    server.addService(MetadataService, {
      metricMetadata: answerAll(MetadataService.metricMetadata.path, (req: MetricMetadataRequest): MetricMetadataResponse[] =>
        [{ result: { $case: 'metadata', value: metadataApi.metricMetadata(req) } }]),
    } as grpc.UntypedServiceImplementation);
  }

  server.addService(InfoService, { info: unary(InfoService.info.path, () => api.infoService()) } as grpc.UntypedServiceImplementation);

  const health = new Health({ '': NOT_SERVING });
  health.addToServer(server);

  // Messages compressed with "snappy", as Thanos Receive's router sends every RemoteWrite by default (snappy.ts).
  const snappyMissing = installGrpcSnappy();
  if (snappyMissing.length > 0) opts.log.warn({ missing: snappyMissing }, 'gRPC messages compressed with snappy are refused (UNIMPLEMENTED): this grpc-js lacks what src/grpc/snappy.ts relies on');
  // Wider HTTP/2 windows than grpc-js' 64 KiB (flow-control.ts): fewer round trips and syscalls a RemoteWrite.
  const windowsMissing = widenStreamWindows(server);
  const port = await new Promise<number>((done, fail2) => {
    const at = `${opts.host.includes(':') ? `[${opts.host}]` : opts.host}:${opts.port}`;
    server.bindAsync(at, credentials(opts.tls), (err, p) => (err ? fail2(listenFailed(at, err)) : done(p)));
  });
  if (windowsMissing.length === 0) widenConnectionWindows(server);
  else opts.log.warn({ missing: windowsMissing }, 'HTTP/2 windows stay at 64 KiB: this grpc-js lacks what src/grpc/flow-control.ts relies on');
  if (write !== undefined && opts.remoteWritePath !== 'grpc-js') {
    // RemoteWrite's streams are served before grpc-js sees them (raw-unary.ts); grpc-js keeps the method for the rest.
    const rawMissing = takeUnaryStreams(server, {
      path: WriteableStoreService.remoteWrite.path,
      maxRecvBytes: opts.maxRecvBytes,
      handle: write,
      statusOf: fail,
      ...(opts.onCall === undefined ? {} : { onCall: opts.onCall }),
    });
    if (rawMissing.length > 0) opts.log.warn({ missing: rawMissing }, 'RemoteWrite is served by grpc-js: this grpc-js lacks what src/grpc/raw-unary.ts relies on');
  }
  for (const s of ['', ...services]) health.setStatus(s, SERVING);
  // Reflection lists what is served (without RemoteWrite, not WriteableStore); added a moment later (reflection.ts).
  const reflection = addReflectionLater(server, write === undefined ? services : undefined, opts.log);

  return {
    port,
    close: (graceMs = 10_000) => new Promise<void>((done) => {
      reflection.cancel();
      for (const s of ['', ...services]) health.setStatus(s, NOT_SERVING);
      const timer = setTimeout(() => server.forceShutdown(), graceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        done();
      });
    }),
  };
}

function credentials(tls: GrpcTls | undefined): grpc.ServerCredentials {
  if (tls === undefined) return grpc.ServerCredentials.createInsecure();
  const ca = tls.clientCa === undefined ? null : readFileSync(tls.clientCa);
  return grpc.ServerCredentials.createSsl(ca, [{ private_key: readFileSync(tls.key), cert_chain: readFileSync(tls.cert) }], ca !== null);
}
