/**
 * The uWebSockets.js native binding, loaded directly.
 *
 * The package's entry point silently falls back to a slow pure-JS shim when
 * its native binary does not load; Strata refuses that: it loads the binary
 * for this platform and ABI itself and fails with a clear error otherwise.
 */
import { createRequire } from 'node:module';
import type * as Uws from 'uWebSockets.js';

export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';

/** The binding's API, plus `close()` which this build's apps have but its typings omit. */
export type UwsModule = Omit<typeof Uws, 'App' | 'SSLApp'> & {
  App(options?: Uws.AppOptions): Uws.TemplatedApp & { close(): void };
  /** Throws "App construction failed", naming no file, when a TLS file does not load (see tls.ts). */
  SSLApp(options: Uws.AppOptions): Uws.TemplatedApp & { close(): void };
};

/**
 * The size of this build's (20.30) cork buffer: what a handler writes waits
 * there until the handler returns, unless one write does not fit, which
 * sends the buffer and that write to the socket at once.
 */
export const UWS_CORK_BUFFER_BYTES = 16 * 1024;

/**
 * The longest Content-Length this build frames. Its parser reads the
 * header only after the request handler has run: a longer value, or one
 * with anything but digits, makes it close the connection at once,
 * dropping what is still in the cork buffer (upstream 20.54 reads 18 digits).
 */
export const UWS_CONTENT_LENGTH_DIGITS = 9;

/**
 * Whether this build closes the connection once the answer is complete:
 * its own test, a Connection header of exactly five characters ("close"),
 * or HTTP/1.0, which the request does not show (see drain.ts).
 */
export function asksToClose(connectionHeader: string): boolean {
  return connectionHeader.length === 5;
}

/** Thrown when the native binary cannot be loaded on this platform and Node. */
export class UwsLoadError extends Error {
  override readonly name = 'UwsLoadError';
}

function load(): UwsModule {
  const binary = `uWebSockets.js/binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  try {
    return createRequire(import.meta.url)(binary) as UwsModule;
  } catch (err) {
    throw new UwsLoadError(
      `uWebSockets.js: the native binary ${binary} does not load on ${process.platform}/${process.arch} ` +
        `with Node ${process.versions.node} (ABI ${process.versions.modules}); Strata needs Node 20 on glibc and ` +
        `will not fall back to the slow JavaScript shim: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

let cached: UwsModule | undefined;

/** The native binding, loaded on first use. Throws {@link UwsLoadError} when it cannot be. */
export function uws(): UwsModule {
  cached ??= load();
  return cached;
}
