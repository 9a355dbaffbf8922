/**
 * LEB128 varints of JS numbers for the histogram body and WAL record
 * (histogram-body.ts, histogram-record.ts): unsigned values up to 2^53 - 1 and zigzag
 * signed values of magnitude up to 2^53 - 1, exactly. Zigzag of a negative
 * value of that size needs 54 bits, more than a double holds, so it is
 * written and read without ever being formed as a number.
 */

/** Bytes the longest varint written here takes (54 bits). */
export const MAX_VARINT_BYTES = 8;

/** Writes `n` (0 <= n < 2^53, an integer) at `at`; returns the end. */
export function writeUvarint(b: Uint8Array, at: number, n: number): number {
  while (n >= 128) {
    b[at++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  b[at++] = n;
  return at;
}

/** Writes zigzag(`n`) (|n| < 2^53, an integer) at `at`; returns the end. */
export function writeZigzag(b: Uint8Array, at: number, n: number): number {
  if (n >= 0) return writeUvarint(b, at, n * 2);
  // zz = 2m - 1 for m = -n: its low 7 bits, then floor(zz / 128) = floor((m - 1) / 64).
  const m = -n;
  const rest = Math.floor((m - 1) / 64);
  const low = ((m % 64) * 2 + 127) % 128;
  if (rest === 0) {
    b[at++] = low;
    return at;
  }
  b[at++] = low | 0x80;
  return writeUvarint(b, at, rest);
}

/** Where the last read ended. */
export let varEnd = 0;

/**
 * Reads an unsigned varint at `at`, not past `end`. Returns -1 when it is
 * cut short or holds 2^53 or more.
 */
export function readUvarint(b: Uint8Array, at: number, end: number): number {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < MAX_VARINT_BYTES && at < end; i++) {
    const byte = b[at++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      varEnd = at;
      return value <= Number.MAX_SAFE_INTEGER ? value : -1;
    }
    scale *= 128;
  }
  return -1;
}

/** Set by readZigzag: false when the varint was cut short or too large. */
export let zigzagOk = true;

/** Reads a zigzag varint at `at`, not past `end`; check zigzagOk afterwards. */
export function readZigzag(b: Uint8Array, at: number, end: number): number {
  zigzagOk = false;
  if (at >= end) return 0;
  const first = b[at]!;
  let rest = 0;
  if (first >= 0x80) {
    rest = readUvarint(b, at + 1, end);
    if (rest < 0 || rest > 2 ** 47) return 0;
  } else {
    varEnd = at + 1;
  }
  // floor(zz / 2) = (low 7 bits >> 1) + 64 * rest; the sign is zz's low bit.
  const half = ((first & 0x7f) >>> 1) + 64 * rest;
  const negative = (first & 1) !== 0;
  if (half > Number.MAX_SAFE_INTEGER - (negative ? 1 : 0)) return 0;
  zigzagOk = true;
  return negative ? -(half + 1) : half;
}

/**
 * readUvarint and readZigzag over one buffer with the position kept in the
 * reader: for hot loops (histogram-body.ts readPacked), where reading the module's
 * `varEnd` and `zigzagOk` after every call costs more than the varint (a
 * module binding read per field; measured with bench:histograms under tsx).
 * Same values, same limits.
 */
export class VarintReader {
  b: Uint8Array = new Uint8Array(0);
  /** Where the next read starts; after a read, where it ended. */
  at = 0;
  end = 0;
  /** False once a read was cut short or too large. */
  ok = true;

  reset(b: Uint8Array, at: number, end: number): void {
    this.b = b;
    this.at = at;
    this.end = end;
    this.ok = true;
  }

  /** As readUvarint; -1 (and ok false) when cut short or 2^53 or more. */
  uvarint(): number {
    const b = this.b;
    let at = this.at;
    const end = this.end;
    let value = 0;
    let scale = 1;
    for (let i = 0; i < MAX_VARINT_BYTES && at < end; i++) {
      const byte = b[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        this.at = at;
        if (value <= Number.MAX_SAFE_INTEGER) return value;
        this.ok = false;
        return -1;
      }
      scale *= 128;
    }
    this.ok = false;
    return -1;
  }

  /** As readZigzag; 0 and ok false when cut short or too large. */
  zigzag(): number {
    const at = this.at;
    if (at >= this.end) {
      this.ok = false;
      return 0;
    }
    const first = this.b[at]!;
    let rest = 0;
    if (first >= 0x80) {
      this.at = at + 1;
      rest = this.uvarint();
      if (rest < 0 || rest > 2 ** 47) {
        this.ok = false;
        return 0;
      }
    } else {
      this.at = at + 1;
    }
    const half = ((first & 0x7f) >>> 1) + 64 * rest;
    const negative = (first & 1) !== 0;
    if (half > Number.MAX_SAFE_INTEGER - (negative ? 1 : 0)) {
      this.ok = false;
      return 0;
    }
    return negative ? -(half + 1) : half;
  }
}
