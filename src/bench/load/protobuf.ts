/**
 * The few protobuf pieces a remote-write template needs, written by hand so
 * that the load generator never builds a per-sample JavaScript object and
 * so that a sample's value and timestamp sit at fixed byte offsets that can
 * be rewritten in place (see template.ts).
 *
 * Field numbers (prometheus/prompb; proto/prometheus/types.proto): WriteRequest
 * {timeseries = 1}; TimeSeries {labels = 1, samples = 2}; Label {name = 1,
 * value = 2}; Sample {value = 1 (double), timestamp = 2 (int64)}.
 */

/** Bytes of `n` (a non-negative safe integer) as a protobuf varint. */
export function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/** Writes `n` as a varint of exactly `width` bytes at `at` (the caller checked it fits). */
export function writeVarintAt(buf: Uint8Array, at: number, n: number, width: number): void {
  for (let k = 0; k < width - 1; k++) {
    buf[at + k] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  buf[at + width - 1] = n;
}

/** A length-delimited field: tag, length, body. */
export function lengthDelimited(field: number, body: ArrayLike<number>): number[] {
  return [(field << 3) | 2, ...varint(body.length), ...Array.from(body)];
}

/** A Label message's bytes: name = 1, value = 2. */
export function labelBytes(name: string, value: string): number[] {
  return [...lengthDelimited(1, Buffer.from(name)), ...lengthDelimited(2, Buffer.from(value))];
}
