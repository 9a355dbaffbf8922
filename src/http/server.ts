/**
 * The HTTP listener: one uWebSockets.js app whose every request goes
 * through a {@link Router}. Stopping closes the listen socket, lets
 * in-flight requests finish (bounded), then closes the remaining idle
 * keep-alive connections.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { startClientCertFront, type ClientCertFront } from './client-cert-front.js';
import { createDispatch, type DispatchHooks, type Lifecycle } from './dispatch.js';
import type { Router } from './router.js';
import { loadTls, TlsFileError, uwsTlsError, type HttpTls, type TlsMaterial } from './tls.js';
import { uws, uwsAdaptation, type UwsModule, type us_listen_socket } from './uws.js';

/** Where to listen. Port 0 picks a free port (see {@link HttpServer.port}). */
export interface ListenAddress {
  host: string;
  port: number;
  /** Serve HTTPS with these files; plain HTTP when absent. */
  tls?: HttpTls;
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

let adaptationLogged = false;

/** How long stopping waits for in-flight requests by default: longer than any commit should take. */
const DEFAULT_GRACE_MS = 10_000;

/**
 * Starts serving `router` on `address`. Rejects with {@link ListenError} if
 * the address cannot be bound, with {@link TlsFileError} (naming the file)
 * if a TLS file cannot serve. `hooks` observe answers (metrics) and tell
 * whether the server is ready (see {@link DispatchHooks}).
 *
 * With `address.tls`, HTTPS: uWebSockets.js' own SSL app, or, when client
 * certificates are required, Node's TLS in front of the app (see
 * client-cert-front.ts for why).
 */
export async function startHttpServer(router: Router, address: ListenAddress, log: Logger, hooks: DispatchHooks = {}): Promise<HttpServer> {
  const binding = uws();
  const adaptation = uwsAdaptation();
  if (adaptation !== undefined && !adaptationLogged) {
    adaptationLogged = true;
    log.info({ binary: adaptation }, 'uWebSockets.js adapted to this glibc');
  }
  const tls = address.tls;
  const material = tls === undefined ? undefined : loadTls(tls);
  const app = createApp(binding, tls);
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
  // The only handler: closeAfterHandler (uws.ts) counts on it.
  app.any('/*', createDispatch(router, life, log, hooks));

  const bound: Bound = tls !== undefined && material?.ca !== undefined
    ? await listenBehindFront(binding, app, address, { ...material, ca: material.ca }, tls, log)
    : await listen(binding, app, address);
  return {
    port: bound.port,
    async close(graceMs = DEFAULT_GRACE_MS) {
      if (life.closing) return;
      life.closing = true;
      binding.us_listen_socket_close(bound.socket);
      bound.front?.stopAccepting();
      if (inFlight > 0) {
        await new Promise<void>((done) => {
          const timer = setTimeout(done, graceMs);
          drained = () => {
            clearTimeout(timer);
            done();
          };
        });
        if (inFlight > 0) log.warn({ inFlight }, 'HTTP: closing with requests still in flight');
        // The last answers were corked in this tick: let the loop send them before every socket closes.
        await new Promise((sent) => setImmediate(sent));
      }
      app.close();
      await bound.front?.close(FRONT_CLOSE_MS);
      if (bound.dir !== undefined) rmSync(bound.dir, { recursive: true, force: true });
    },
  };
}

/** How long closing gives the TLS front to pass on the app's last bytes. */
const FRONT_CLOSE_MS = 1_000;

type App = ReturnType<UwsModule['App']>;

/** What a started server holds: the port clients use, the app's listen socket, and the TLS front if any. */
interface Bound {
  port: number;
  socket: us_listen_socket;
  front?: ClientCertFront;
  /** The private directory of the app's Unix socket behind the front. */
  dir?: string;
}

function createApp(binding: UwsModule, tls: HttpTls | undefined): App {
  // Required client certificates: a plaintext app behind Node's TLS (client-cert-front.ts).
  if (tls === undefined || tls.clientCa !== undefined) return binding.App();
  try {
    return binding.SSLApp({ cert_file_name: tls.cert, key_file_name: tls.key });
  } catch (err) {
    throw uwsTlsError(tls, err);
  }
}

/** uWebSockets.js' ListenOptions value (its typings lack the host, port, options form the binding has). */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;
interface ExclusiveListen {
  listen(host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void): unknown;
}

/** Binds `address` over TCP. */
function listen(binding: UwsModule, app: App, address: ListenAddress): Promise<Bound> {
  return new Promise((resolve, reject) => {
    // Exclusive: without it uWebSockets.js sets SO_REUSEPORT, and a second
    // server on the same address would start and take half the connections.
    (app as unknown as ExclusiveListen).listen(address.host, address.port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket: us_listen_socket | false) => {
      if (socket === false) reject(new ListenError(`HTTP: cannot listen on ${address.host}:${address.port} (address in use or not available)`));
      else resolve({ port: binding.us_socket_local_port(socket as never), socket });
    });
  });
}

/** The app on a Unix socket in a new private directory, and the TLS front on `address`. */
async function listenBehindFront(
  binding: UwsModule, app: App, address: ListenAddress, material: TlsMaterial & { ca: Buffer }, tls: HttpTls, log: Logger,
): Promise<Bound> {
  // mkdtemp makes the directory 0700: no other user can reach the plaintext socket.
  const dir = mkdtempSync(join(tmpdir(), 'strata-https-'));
  const path = join(dir, 'app.sock');
  const socket = await new Promise<us_listen_socket | false>((resolve) => app.listen_unix((s: us_listen_socket | false) => resolve(s), path));
  if (socket === false) {
    app.close();
    rmSync(dir, { recursive: true, force: true });
    throw new ListenError(`HTTP: cannot listen on the Unix socket ${path} behind the TLS front`);
  }
  try {
    const front = await startClientCertFront(address.host, address.port, material, tls, path, log);
    log.info({ clientCa: tls.clientCa }, 'HTTP TLS: client certificates required (Node\'s TLS in front of uWebSockets.js)');
    return { port: front.port, socket, front, dir };
  } catch (err) {
    binding.us_listen_socket_close(socket);
    app.close();
    rmSync(dir, { recursive: true, force: true });
    if (err instanceof TlsFileError) throw err;
    throw new ListenError(`HTTP: cannot listen on ${address.host}:${address.port} (${(err as Error).message})`, { cause: err });
  }
}
