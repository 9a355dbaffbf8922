/**
 * Mutual TLS for the HTTP listener: Node's TLS server in front of the
 * uWebSockets.js app, used only when client certificates are required.
 *
 * Why not uWebSockets.js' own TLS: this build (uSockets on BoringSSL)
 * takes `ca_file_name` as SSL_VERIFY_PEER without
 * SSL_VERIFY_FAIL_IF_NO_PEER_CERT. It refuses a presented certificate that
 * the CA did not sign, but serves a client that presents none, and no
 * certificate reaches JavaScript to be checked per request. A
 * `--http-server-tls-client-ca` that let clients without a certificate in
 * would be an open door where Thanos' flag of that name (and Strata's gRPC
 * one) is a lock. So Node's TLS server terminates TLS here with
 * `requestCert` and `rejectUnauthorized` (a client without a certificate
 * signed by the CA fails the handshake) and pipes each connection's
 * plaintext to the app listening on a Unix socket in a directory only this
 * user may enter. HTTP itself (parsing, routing, keep-alive, timeouts)
 * stays in uWebSockets.js, unchanged.
 *
 * Cost: TLS and one more copy per byte on the main thread. On a busy
 * 2-core machine: remote write (npm run bench:https, 44 KiB requests) took
 * 5 to 25 % more server CPU per sample than with uWebSockets.js' TLS; bare
 * 1 MB bodies from 16 keep-alive clients went through at about half its
 * rate. Without a client CA the listener is uWebSockets.js' SSL app.
 */
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import type { Logger } from 'pino';
import { TlsFileError, type HttpTls, type TlsMaterial } from './tls.js';

/** A TLS handshake that has not finished by then is dropped (Node's default is 120 s). */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** How often closing looks whether the last connections are gone. */
const CLOSE_POLL_MS = 10;

/** The listening TLS front. */
export interface ClientCertFront {
  /** The port bound. */
  readonly port: number;
  /** Stops taking new connections; open ones go on. */
  stopAccepting(): void;
  /**
   * Once the app has closed its connections: waits up to `graceMs` for
   * what they wrote last to reach the clients, then destroys what is left.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * Listens on `host:port` with TLS from `material` (its `ca` required),
 * and pipes every accepted connection to the Unix socket `backend`.
 * Rejects with the listen error when the address cannot be bound.
 */
export function startClientCertFront(
  host: string, port: number, material: TlsMaterial & { ca: Buffer }, files: HttpTls, backend: string, log: Logger,
): Promise<ClientCertFront> {
  let server: tls.Server;
  try {
    // The files as options, not a prebuilt `secureContext`: with one from
    // tls.createSecureContext, Node 20's server failed every handshake
    // ("no suitable signature algorithm").
    server = tls.createServer({
      cert: material.cert, key: material.key, ca: material.ca, requestCert: true, rejectUnauthorized: true, handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    });
  } catch (err) {
    throw new TlsFileError(`HTTP TLS: Node's TLS could not load '${files.cert}', '${files.key}', '${files.clientCa}': ${(err as Error).message}`, { cause: err });
  }
  const open = new Set<net.Socket>();
  server.on('secureConnection', (client) => {
    const app = net.connect(backend);
    open.add(client);
    open.add(app);
    const drop = () => {
      client.destroy();
      app.destroy();
    };
    client.once('close', () => {
      open.delete(client);
      app.destroy();
    });
    app.once('close', () => {
      open.delete(app);
      // Whatever the app wrote has been handed to the TLS socket: end, do not cut it off.
      client.end();
    });
    client.on('error', drop);
    app.on('error', drop);
    client.pipe(app);
    app.pipe(client);
  });
  server.on('tlsClientError', (err) => log.debug({ err: err.message }, 'HTTP TLS: handshake refused'));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', (err) => log.error({ err }, 'HTTP TLS: listener error'));
      const address = server.address() as net.AddressInfo;
      let stopped = false;
      const stopAccepting = () => {
        if (!stopped) server.close();
        stopped = true;
      };
      resolve({
        port: address.port,
        stopAccepting,
        async close(graceMs) {
          stopAccepting();
          const deadline = Date.now() + graceMs;
          while (open.size > 0 && Date.now() < deadline) await sleep(CLOSE_POLL_MS);
          for (const s of open) s.destroy();
        },
      });
    });
  });
}
