import type * as grpc from '@grpc/grpc-js';
import { performance } from 'node:perf_hooks';

/** Told of every finished call: method path, gRPC status code, seconds taken (for metrics). */
export type OnCall = (method: string, code: grpc.status, seconds: number) => void;

/**
 * Call metrics by method and status code, taken where the status is known:
 * at the gRPC edge, for every service (the Store API, RemoteWrite, Info),
 * as Thanos takes them with its gRPC server interceptors. (Not a source
 * decorator: a source knows neither the method path nor that a call was
 * cancelled.) Start the timer when the call arrives; call what it returns
 * once, with the status the call ended with.
 */
export function callTimer(onCall: OnCall | undefined, method: string): (code: grpc.status) => void {
  if (onCall === undefined) return () => {};
  const started = performance.now();
  return (code) => onCall(method, code, (performance.now() - started) / 1000);
}
