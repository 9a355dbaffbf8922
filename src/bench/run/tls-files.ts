/**
 * The client TLS files of `strata bench` (a CA to trust, a client
 * certificate and its key), read once when the flags are parsed and
 * checked there, so that a wrong file is one line naming the flag and the
 * file (exit status 2) rather than every request failing with OpenSSL's
 * words and no file name. Node's TLS takes a CA file with no certificate in
 * it without a word (and then trusts nothing), hence the explicit checks.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../../config/usage-error.js';

/** PEM contents for a TLS client; what is absent is not used. */
export interface ClientTlsFiles {
  /** CA certificate(s) to trust instead of the system's. */
  ca?: Buffer;
  /** Client certificate (chain) and its private key: always both or neither. */
  cert?: Buffer;
  key?: Buffer;
}

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

function read(flag: string, file: string): Buffer {
  if (file === '') throw new UsageError(`--${flag}: needs a file name`);
  try {
    return readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'a directory, not a file' : e.message;
    throw new UsageError(`--${flag}: cannot read '${file}': ${why}`, { cause: err });
  }
}

/** A file of PEM certificates; the first one must parse. */
function certificates(flag: string, file: string): { pem: Buffer; first: X509Certificate } {
  const pem = read(flag, file);
  const fail = (why: string): UsageError => new UsageError(`--${flag}: '${file}' is not a PEM certificate: ${why}`);
  if (!pem.includes(PEM_CERTIFICATE)) throw fail(`no '${PEM_CERTIFICATE}' line`);
  try {
    return { pem, first: new X509Certificate(pem) };
  } catch (err) {
    throw fail((err as Error).message);
  }
}

/**
 * Reads and checks the files the flags name: the CA and the certificate
 * hold PEM certificates, the key is an unencrypted PEM private key of that
 * certificate, and certificate and key come together. `flags` are the
 * flags' names without dashes, for the messages.
 */
export function readClientTls(
  flags: { ca: string; cert: string; key: string },
  files: { ca?: string | undefined; cert?: string | undefined; key?: string | undefined },
): ClientTlsFiles {
  const out: ClientTlsFiles = {};
  if ((files.cert === undefined) !== (files.key === undefined)) {
    throw new UsageError(`--${flags.cert} and --${flags.key} go together (a client certificate and its key)`);
  }
  if (files.ca !== undefined) out.ca = certificates(flags.ca, files.ca).pem;
  if (files.cert !== undefined && files.key !== undefined) {
    const { pem, first } = certificates(flags.cert, files.cert);
    const key = read(flags.key, files.key);
    let ok: boolean;
    try {
      ok = first.checkPrivateKey(createPrivateKey({ key, format: 'pem' }));
    } catch (err) {
      throw new UsageError(`--${flags.key}: '${files.key}' is not an unencrypted PEM private key: ${(err as Error).message}`);
    }
    if (!ok) throw new UsageError(`--${flags.key}: the key in '${files.key}' does not belong to the certificate in '${files.cert}' (--${flags.cert})`);
    out.cert = pem;
    out.key = key;
  }
  return out;
}

/** A server name flag's value: a host name or address, not empty. */
export function serverNameFlag(flag: string, value: string): string {
  if (value === '' || /[\s/]/.test(value)) throw new UsageError(`--${flag}: '${value}' is not a host name`);
  return value;
}
