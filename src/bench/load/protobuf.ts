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
import { putUvarint, uvarintSize } from '../../encoding/varint.js';

/** A length-delimited field: tag, length, body. */
export function lengthDelimited(field: number, body: ArrayLike<number>): number[] {
  const length = new Uint8Array(uvarintSize(body.length));
  putUvarint(length, 0, body.length);
  return [(field << 3) | 2, ...length, ...Array.from(body)];
}

/** A Label message's bytes: name = 1, value = 2. */
export function labelBytes(name: string, value: string): number[] {
  return [...lengthDelimited(1, Buffer.from(name)), ...lengthDelimited(2, Buffer.from(value))];
}
