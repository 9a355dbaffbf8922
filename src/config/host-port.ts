import { UsageError } from './usage-error.js';

/** A listen address. */
export interface HostPort {
  host: string;
  port: number;
}

/**
 * Parses `HOST:PORT` (`[::1]:PORT` for IPv6; an empty host means 0.0.0.0).
 *
 * @throws UsageError naming `--flag` when the value is not an address.
 */
export function parseHostPort(flag: string, value: string): HostPort {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\[\]]*)):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--${flag}: '${value}' is not HOST:PORT with a port from 0 to 65535`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}
