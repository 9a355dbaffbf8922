/**
 * The HTTP listener: one uWebSockets.js app whose every request goes
 * through a {@link Router}. Stopping closes the listen socket, lets
 * in-flight requests finish (bounded), then closes the remaining idle
 * keep-alive connections.
 */
import type { Logger } from 'pino';
import { createDispatch, type DispatchHooks, type Lifecycle } from './dispatch.js';
import type { Router } from './router.js';
import { uws, type us_listen_socket } from './uws.js';

/** Where to listen. Port 0 picks a free port (see {@link HttpServer.port}). */
export interface ListenAddress {
  host: string;
  port: number;
}

/** A listening HTTP server. */
export interface HttpServer {
  /** The port actually bound. */
  readonly port: number;
  /**
   * Stops accepting connections, waits up to `graceMs` for requests in
   * flight to be answered, then closes every connection. Resolves once done.
   */
  close(graceMs?: number): Promise<void>;
}

/** Thrown when the address cannot be bound. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

/** How long stopping waits for in-flight requests by default: longer than any commit should take. */
const DEFAULT_GRACE_MS = 10_000;

/**
 * Starts serving `router` on `address`. Rejects with {@link ListenError} if
 * the address cannot be bound. `hooks` observe answers (metrics) and tell
 * whether the server is ready (see {@link DispatchHooks}).
 */
export function startHttpServer(router: Router, address: ListenAddress, log: Logger, hooks: DispatchHooks = {}): Promise<HttpServer> {
  const binding = uws();
  const app = binding.App();
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const life: Lifecycle & { closing: boolean } = {
    closing: false,
    begin: () => {
      inFlight++;
    },
    end: () => {
      inFlight--;
      if (inFlight === 0) drained?.();
    },
  };
  app.any('/*', createDispatch(router, life, log, hooks));

  return new Promise((resolve, reject) => {
    app.listen(address.host, address.port, (socket: us_listen_socket | false) => {
      if (socket === false) {
        reject(new ListenError(`HTTP: cannot listen on ${address.host}:${address.port} (address in use or not available)`));
        return;
      }
      const port = binding.us_socket_local_port(socket as never);
      resolve({
        port,
        async close(graceMs = DEFAULT_GRACE_MS) {
          if (life.closing) return;
          life.closing = true;
          binding.us_listen_socket_close(socket);
          if (inFlight > 0) {
            await new Promise<void>((done) => {
              const timer = setTimeout(done, graceMs);
              drained = () => {
                clearTimeout(timer);
                done();
              };
            });
            if (inFlight > 0) log.warn({ inFlight }, 'HTTP: closing with requests still in flight');
          }
          app.close();
        },
      });
    });
  });
}
