/**
 * A tiny thanos.WriteableStore/RemoteWrite server on 127.0.0.1 (grpc-js)
 * for the load tester's tests: it answers each call as a script says (by
 * arrival number) with a gRPC status, decodes what it accepts with the
 * generated thanos WriteRequest, and counts the samples taken and the
 * tenants and metadata it saw.
 */
import * as grpc from '@grpc/grpc-js';
import { WriteRequest, WriteableStoreService, type WriteResponse } from '../../../src/gen/thanos/store/rpc.js';
import { installGrpcSnappy } from '../../../src/grpc/snappy.js';

// The load tester compresses with "snappy" by default, as Thanos Receive's router does.
installGrpcSnappy();

/** What to answer: OK, or a gRPC status with a message. */
export type GrpcAnswer = { code: grpc.status; message?: string };

export interface GrpcWriteTarget {
  url: string;
  /** Arrival times (ms) of every call, in order. */
  arrivals: number[];
  /** Samples and histograms in the calls answered OK. */
  taken: { samples: number; histograms: number; requests: number };
  /** The tenant field of every call, in order. */
  tenants: string[];
  /** Metadata of the first call. */
  firstMetadata?: grpc.Metadata;
  close(): Promise<void>;
}

export async function startGrpcWriteTarget(script: (n: number) => GrpcAnswer = () => ({ code: grpc.status.OK })): Promise<GrpcWriteTarget> {
  const target = { arrivals: [] as number[], taken: { samples: 0, histograms: 0, requests: 0 }, tenants: [] as string[], firstMetadata: undefined as grpc.Metadata | undefined };
  const server = new grpc.Server({ 'grpc.max_receive_message_length': -1 });
  server.addService(WriteableStoreService, {
    remoteWrite: (call: grpc.ServerUnaryCall<WriteRequest, WriteResponse>, callback: grpc.sendUnaryData<WriteResponse>) => {
      const n = target.arrivals.length;
      target.arrivals.push(Date.now());
      target.firstMetadata ??= call.metadata;
      target.tenants.push(call.request.tenant);
      const answer = script(n);
      if (answer.code !== grpc.status.OK) {
        callback({ code: answer.code, details: answer.message ?? '', metadata: new grpc.Metadata() } as grpc.ServiceError);
        return;
      }
      for (const ts of call.request.timeseries) {
        target.taken.samples += ts.samples.length;
        target.taken.histograms += ts.histograms.length;
      }
      target.taken.requests++;
      callback(null, {});
    },
  } as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((done, fail) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? fail(err) : done(p))));
  return {
    get arrivals() { return target.arrivals; },
    get taken() { return target.taken; },
    get tenants() { return target.tenants; },
    get firstMetadata() { return target.firstMetadata; },
    url: `grpc://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.forceShutdown();
      resolve();
    }),
  };
}
