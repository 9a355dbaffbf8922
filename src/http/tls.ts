/**
 * The certificate files of the HTTPS listener, checked before uWebSockets.js
 * sees them.
 *
 * uWebSockets.js reports every certificate problem with the same "App
 * construction failed" and no file name (a missing key, a key that does
 * not match, a file that is not PEM). Node's crypto reads the same PEM
 * files first so that start-up fails naming the file and what is wrong
 * with it; uWebSockets.js' own failure is still caught and names all the
 * files, for whatever these checks let through.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** HTTPS: the server's certificate and key, and optionally the CA client certificates must be signed by. */
export interface HttpTls {
  /** PEM certificate (chain), leaf first. */
  cert: string;
  /** PEM private key of the certificate, unencrypted. */
  key: string;
  /** PEM CA certificate(s): when given, clients must present a certificate signed by one of them. */
  clientCa?: string;
}

/** The files' contents, checked. */
export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
}

/** Thrown at start-up when a TLS file cannot serve; the message names the file. */
export class TlsFileError extends Error {
  override readonly name = 'TlsFileError';
}

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

function read(role: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new TlsFileError(`HTTP TLS: cannot read the ${role} file '${file}': ${(err as Error).message}`, { cause: err });
  }
}

/** The first certificate of a PEM file (uWebSockets.js takes PEM only, while X509Certificate also takes DER). */
function certificate(role: string, file: string, pem: Buffer): X509Certificate {
  const fail = (why: string, cause?: unknown) =>
    new TlsFileError(`HTTP TLS: the ${role} file '${file}' is not a PEM certificate: ${why}`, cause === undefined ? undefined : { cause });
  if (!pem.includes(PEM_CERTIFICATE)) throw fail(`no '${PEM_CERTIFICATE}' line`);
  try {
    return new X509Certificate(pem);
  } catch (err) {
    throw fail((err as Error).message, err);
  }
}

function privateKey(file: string, pem: Buffer): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: 'pem' });
  } catch (err) {
    throw new TlsFileError(`HTTP TLS: the key file '${file}' is not an unencrypted PEM private key: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Reads and checks `tls`: the certificate and the CA are PEM certificates,
 * the key is an unencrypted PEM private key and belongs to the
 * certificate. Throws {@link TlsFileError} naming the file otherwise.
 */
export function loadTls(tls: HttpTls): TlsMaterial {
  const cert = read('certificate', tls.cert);
  const key = read('key', tls.key);
  const leaf = certificate('certificate', tls.cert, cert);
  if (!leaf.checkPrivateKey(privateKey(tls.key, key))) {
    throw new TlsFileError(`HTTP TLS: the key in '${tls.key}' does not belong to the certificate in '${tls.cert}'`);
  }
  if (tls.clientCa === undefined) return { cert, key };
  const ca = read('client CA', tls.clientCa);
  certificate('client CA', tls.clientCa, ca);
  return { cert, key, ca };
}

/** The error for uWebSockets.js refusing files these checks passed. */
export function uwsTlsError(tls: HttpTls, cause: unknown): TlsFileError {
  const files = [tls.cert, tls.key, ...(tls.clientCa === undefined ? [] : [tls.clientCa])].map((f) => `'${f}'`).join(', ');
  return new TlsFileError(`HTTP TLS: uWebSockets.js could not load the TLS files ${files}: ${(cause as Error).message}`, { cause });
}
