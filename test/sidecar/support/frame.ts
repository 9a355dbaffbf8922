import { crc32c } from '@node-rs/crc32';

/** One frame of Prometheus' streamed remote read: uvarint length, big-endian CRC32C, the message. */
export function frame(msg: Uint8Array): Buffer {
  const len: number[] = [];
  let n = msg.length;
  while (n >= 0x80) {
    len.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  len.push(n);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32c(msg) >>> 0);
  return Buffer.concat([Buffer.from(len), crc, msg]);
}
