/**
 * The uWebSockets.js native binding.
 *
 * The package (upstream's v20.51.0 binaries, see docs/uwebsockets.md) has
 * no JavaScript fallback: its entry point loads the binary for this
 * platform and ABI or throws, and Strata turns that into a clear error.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Uws from 'uWebSockets.js';
import { loadAdapted, NEWER_GLIBC, wantsNewerGlibc } from './uws-glibc.js';

export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';

/** The binding's API. */
export type UwsModule = Omit<typeof Uws, 'SSLApp'> & {
  /** Throws "App construction failed", naming no file, when a TLS file does not load (see tls.ts). */
  SSLApp(options: Uws.AppOptions): Uws.TemplatedApp;
};

/**
 * The size of this build's (20.51) cork buffer: what a handler writes waits
 * there until the handler returns, unless one write does not fit, which
 * sends the buffer and that write to the socket at once.
 */
export const UWS_CORK_BUFFER_BYTES = 16 * 1024;

/**
 * The longest Content-Length this build frames (its parser takes up to 18
 * digits). Its parser reads the header only after the request handler has
 * returned: a longer value, or one with anything but digits, then makes it
 * write its own "400 Bad Request" page and close the connection, unless
 * the handler closed it first (see length-guard.ts).
 */
export const UWS_CONTENT_LENGTH_DIGITS = 18;

/**
 * Whether this build closes the connection once the answer is complete:
 * its own test, a Connection header of exactly five characters ("close"),
 * or HTTP/1.0, which the request does not show (see drain.ts).
 */
export function asksToClose(connectionHeader: string): boolean {
  return connectionHeader.length === 5;
}

/**
 * Closes the connection once the request handler returns, after its
 * answer, before the parser reads Content-Length (res.close() throws once
 * the answer is complete). The handler says it did not handle the route;
 * with no other handler left (server.ts registers one, `any /*`), the
 * router fails and this build closes the socket, parsing no further.
 */
export function closeAfterHandler(req: Uws.HttpRequest): void {
  req.setYield(true);
}

/** Thrown when the native binary cannot be loaded on this platform and Node. */
export class UwsLoadError extends Error {
  override readonly name = 'UwsLoadError';
}

function load(): UwsModule {
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  const require = createRequire(import.meta.url);
  try {
    return require('uWebSockets.js') as UwsModule;
  } catch (err) {
    if (wantsNewerGlibc(err)) {
      try {
        const adapted = loadAdapted(join(dirname(require.resolve('uWebSockets.js')), binary)) as UwsModule;
        adaptedFor = `${binary} asks for ${NEWER_GLIBC}; loaded a copy adapted for glibc ${glibc()} (docs/uwebsockets.md)`;
        return adapted;
      } catch (adaptErr) {
        throw loadError(binary, `${(err as Error).message}; adapting it failed: ${(adaptErr as Error).message}`, err);
      }
    }
    throw loadError(binary, (err as Error).message, err);
  }
}

function loadError(binary: string, why: string, cause: unknown): UwsLoadError {
  return new UwsLoadError(
    `uWebSockets.js: the native binary ${binary} does not load on ${process.platform}/${process.arch} ` +
      `with Node ${process.versions.node} (ABI ${process.versions.modules}, glibc ${glibc()}); Strata needs ` +
      `Node 20 or 22 on glibc 2.27 or later, or Node 24 on glibc 2.36 or later: ${why}`,
    { cause },
  );
}

let adaptedFor: string | undefined;

/**
 * Set once the binding was loaded from a copy adapted to an older glibc
 * (see uws-glibc.ts): says which binary and why, for the start-up log.
 */
export function uwsAdaptation(): string | undefined {
  return adaptedFor;
}

/** The running C library's version, for the load error. */
function glibc(): string {
  const header = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return header?.header?.glibcVersionRuntime ?? 'none';
}

let cached: UwsModule | undefined;

/** The native binding, loaded on first use. Throws {@link UwsLoadError} when it cannot be. */
export function uws(): UwsModule {
  cached ??= load();
  return cached;
}
