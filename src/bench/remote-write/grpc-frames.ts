/**
 * A remote-write load for thanos.WriteableStore/RemoteWrite: each planned
 * request (a snappy-compressed prometheus.WriteRequest, plan.ts) turned,
 * before the clock starts, into the whole body of one gRPC call, so that
 * sending costs no encoding at all.
 *
 * Thanos' WriteRequest (proto/thanos/store/rpc.proto) is timeseries = 1
 * (Prometheus' TimeSeries bytes, as in Prometheus' WriteRequest), tenant =
 * 2, replica = 3. The planned requests hold only field 1, so the
 * decompressed bytes are already a Thanos WriteRequest; the tenant is
 * appended as field 2 (protobuf allows a field after the repeated ones).
 * Replica stays 0 (absent): a request not replicated, as a Receive router
 * sends one it has not yet replicated. The body is gRPC's length-prefixed
 * message: the compressed flag (1 with snappy, then `grpc-encoding: snappy`
 * goes with the call), the length as 4 bytes big-endian, the message.
 */
import { encodeSnappyFramed } from '../../encoding/snappy-framed.js';
import { putUvarint, uvarintSize } from '../../encoding/varint.js';
import { reencodeRequests } from './reencode.js';

/**
 * How the messages are compressed: "snappy" as Thanos' gRPC compressor
 * (Go's snappy framing format; Thanos Receive's router default,
 * --receive.grpc-compression), or not at all.
 */
export type GrpcCompression = 'snappy' | 'none';

/** gRPC's message prefix: compressed flag (1 byte) and length (4 bytes, big-endian). */
const PREFIX_BYTES = 5;

/** The tenant field's bytes (WriteRequest.tenant = 2, length-delimited); empty without a tenant. */
export function tenantField(tenant: string | undefined): Buffer {
  if (tenant === undefined || tenant === '') return Buffer.alloc(0);
  const name = Buffer.from(tenant, 'utf8');
  const field = Buffer.allocUnsafe(1 + uvarintSize(name.length) + name.length);
  field[0] = 0x12;
  name.copy(field, putUvarint(field, 1, name.length));
  return field;
}

/**
 * Every request of `compressed` as one gRPC call body (see the module
 * comment), in the same order. Each body is its own exactly-sized Buffer.
 *
 * @throws LoadTooLargeError when the bodies together take more than `maxBytes`.
 */
export function grpcWriteBodies(compressed: readonly Buffer[], tenant: string | undefined, maxBytes: number, compression: GrpcCompression = 'none'): Buffer[] {
  const tail = tenantField(tenant);
  return reencodeRequests(compressed, maxBytes, `${compression === 'snappy' ? 'snappy-framed' : 'uncompressed'} gRPC messages`, (decoded) => {
    const plain = tail.length === 0 ? decoded : Buffer.concat([decoded, tail]);
    const message = compression === 'snappy' ? encodeSnappyFramed(plain) : plain;
    const body = Buffer.allocUnsafeSlow(PREFIX_BYTES + message.length);
    body[0] = compression === 'snappy' ? 1 : 0;
    body.writeUInt32BE(message.length, 1);
    message.copy(body, PREFIX_BYTES);
    return body;
  });
}
