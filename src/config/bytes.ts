import { UsageError } from './usage-error.js';

/** Prometheus' byte units (alecthomas/units Base2Bytes): powers of 1024, with or without the i. */
const UNIT: Record<string, number> = {
  B: 1,
  KB: 2 ** 10, KiB: 2 ** 10,
  MB: 2 ** 20, MiB: 2 ** 20,
  GB: 2 ** 30, GiB: 2 ** 30,
  TB: 2 ** 40, TiB: 2 ** 40,
  PB: 2 ** 50, PiB: 2 ** 50,
  EB: 2 ** 60, EiB: 2 ** 60,
};

/**
 * Parses a size as Prometheus' --storage.tsdb.retention.size does:
 * `512MB`, `1.5GB`, `10GiB`, `0` (none); units are powers of 1024.
 * Returns bytes.
 */
export function parseBytes(flag: string, value: string): number {
  if (value === '0') return 0;
  const m = /^(\d+(?:\.\d+)?)([KMGTPE]i?B|B)$/.exec(value);
  if (m === null) throw new UsageError(`--${flag}: '${value}' is not a size such as 512MB, 10GB or 1TiB`);
  const bytes = Math.floor(Number(m[1]) * UNIT[m[2]!]!);
  if (!Number.isSafeInteger(bytes)) throw new UsageError(`--${flag}: '${value}' is too large`);
  return bytes;
}
