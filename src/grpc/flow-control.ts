/**
 * HTTP/2 flow-control windows for the gRPC server, which grpc-js (1.14)
 * leaves at HTTP/2's 65,535 bytes for every stream and for the whole
 * connection and offers no server option for. This reaches into two
 * grpc-js internals: `commonServerOptions` (the options every HTTP/2
 * server it creates is made with, read at bind time) and `http2Servers`
 * (the HTTP/2 servers made by bindAsync). When either is missing nothing
 * is changed, and probeFlowControlInternals() names what is missing
 * (test/grpc/flow-control.test.ts fails loudly then).
 *
 * Why: a client may send only a window's worth of bytes before the server
 * answers with WINDOW_UPDATE. A RemoteWrite of 2,000 series is about
 * 290 KB uncompressed, so with 64 KiB windows shared by 4 streams every
 * call took several round trips of the server's event loop (which is also
 * the head's writer), and two to three times the syscalls. Measured on
 * loopback, 2,000 series a call, 4 streams, three runs each: 26-47 write
 * and 24-45 read syscalls of the whole server a call with 64 KiB windows,
 * against 7-14 and 9-16 with these; 1.48-1.71 against 1.22-1.30 µs of
 * server CPU a sample (bench/RESULTS.md, 2026-11-27). Across hosts, a 64 KiB connection window also caps a
 * connection at 64 KiB per round trip (64 MB/s at 1 ms). grpc-go, which
 * Thanos Receive's own server runs on, grows its windows up to 16 MiB by
 * measuring the connection (BDP estimation).
 */
import type * as grpc from '@grpc/grpc-js';
import type { Http2Server, Http2Session, Settings } from 'node:http2';

/** Window of each stream (SETTINGS_INITIAL_WINDOW_SIZE): a few large RemoteWrite calls' worth of bytes. */
export const STREAM_WINDOW_BYTES = 1 << 20;
/** Window of the whole connection: several streams' windows, so that concurrent calls do not wait on each other. */
export const CONNECTION_WINDOW_BYTES = 4 << 20;

interface ServerInternals {
  commonServerOptions?: { settings?: Settings };
  http2Servers?: Map<Http2Server, unknown>;
}

const internals = (server: grpc.Server): ServerInternals => server as unknown as ServerInternals;

/** What this grpc-js lacks for the windows to be set: empty when they can be. */
export function probeFlowControlInternals(server: grpc.Server): string[] {
  const s = internals(server);
  const missing: string[] = [];
  if (s.commonServerOptions === undefined || typeof s.commonServerOptions !== 'object') missing.push('Server.commonServerOptions');
  if (!(s.http2Servers instanceof Map)) missing.push('Server.http2Servers');
  return missing;
}

/**
 * Sets the streams' window on `server`; call it before bindAsync. Returns
 * what this grpc-js lacks (then nothing was changed).
 */
export function widenStreamWindows(server: grpc.Server, streamWindow = STREAM_WINDOW_BYTES): string[] {
  const missing = probeFlowControlInternals(server);
  if (missing.length > 0) return missing;
  const options = internals(server).commonServerOptions!;
  options.settings = { ...options.settings, initialWindowSize: streamWindow };
  return [];
}

/**
 * Widens the window of every connection the bound HTTP/2 servers take
 * from now on; call it once bindAsync has called back (grpc-js makes
 * the servers then, and no connection has been taken yet).
 */
export function widenConnectionWindows(server: grpc.Server, connectionWindow = CONNECTION_WINDOW_BYTES): string[] {
  const missing = probeFlowControlInternals(server);
  if (missing.length > 0) return missing;
  for (const http2Server of internals(server).http2Servers!.keys()) {
    http2Server.on('session', (session: Http2Session) => {
      // Sends a WINDOW_UPDATE on stream 0 as the connection starts.
      session.setLocalWindowSize(connectionWindow);
    });
  }
  return [];
}
