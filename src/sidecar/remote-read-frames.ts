import { crc32cRange } from '../encoding/crc32c.js';
import { MAX_VARINT64_BYTES, readUvarint, type VarintRead } from '../encoding/varint.js';

/** Longest frame taken: Prometheus sends about 1 MiB; a frame past this is a broken stream. */
export const MAX_FRAME_BYTES = 64 << 20;

/** Bytes before a frame's message: its uvarint length and CRC32C. */
const MAX_HEADER_BYTES = MAX_VARINT64_BYTES + 4;

/** Why a stream of frames cannot be read. */
export type FrameFault = 'bad frame length' | 'frame past the limit' | 'frame checksum mismatch';

/**
 * Splits a STREAMED_XOR_CHUNKS answer (frames of uvarint length, CRC32C
 * big-endian, message) into message bodies as its pieces arrive. A frame
 * wholly inside a piece is handed on as a view of it, never copied; only a
 * frame cut across pieces is copied, once, into a buffer of its own size.
 * Prometheus flushes one frame a series (1-2 KB), so most frames are whole
 * in a 64 KiB socket read. Views stay valid as long as their piece: Node
 * gives each socket read a buffer of its own.
 */
export class FrameSplitter {
  /** The pieces of the frame cut short so far (views), and their bytes. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The cut frame's whole size (header included) once its header is in; -1 before. */
  private frameBytes = -1;
  /** The cut frame's header bytes (length and CRC), once its header is in. */
  private headerBytes = 0;
  private readonly varint: VarintRead = { value: 0, next: 0 };

  constructor(private readonly onFrame: (body: Buffer) => void, private readonly onFault: (fault: FrameFault, bytes: number) => never) {}

  /** Bytes of a frame cut short, held for the next piece (non-zero at the end of the stream: it ended inside a frame). */
  get heldBytes(): number {
    return this.pendingBytes;
  }

  push(piece: Buffer): void {
    let at = 0;
    if (this.pendingBytes > 0) {
      at = this.finishCut(piece);
      if (at < 0) return;
    }
    for (;;) {
      const size = this.frameSize(piece, at, piece.length);
      if (size < 0 || at + size > piece.length) break;
      this.emit(piece, at, size, this.varint.next - at + 4);
      at += size;
    }
    if (at < piece.length) this.hold(piece.subarray(at));
  }

  /** Completes the frame held from earlier pieces with the start of `piece`; where `piece` goes on, or -1 when it was all taken. */
  private finishCut(piece: Buffer): number {
    if (this.frameBytes < 0) {
      // The header itself was cut: join its few bytes to read it.
      const head = Buffer.concat([...this.pending, piece.subarray(0, MAX_HEADER_BYTES)]);
      const size = this.frameSize(head, 0, head.length);
      if (size < 0) {
        this.hold(piece);
        return -1;
      }
      this.frameBytes = size;
      this.headerBytes = this.varint.next + 4;
    }
    const missing = this.frameBytes - this.pendingBytes;
    if (missing > piece.length) {
      this.hold(piece);
      return -1;
    }
    const frame = Buffer.allocUnsafe(this.frameBytes);
    let fill = 0;
    for (const p of this.pending) fill += p.copy(frame, fill);
    piece.copy(frame, fill, 0, missing);
    this.pending = [];
    this.pendingBytes = 0;
    this.frameBytes = -1;
    this.emit(frame, 0, frame.length, this.headerBytes);
    return missing;
  }

  private hold(bytes: Buffer): void {
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
  }

  /** The size of the frame starting at `at` (header included), or -1 when its header is not all in [at, end). */
  private frameSize(b: Buffer, at: number, end: number): number {
    const { value: len, next } = readUvarint(b, at, Math.min(end, at + MAX_VARINT64_BYTES), this.varint);
    if (next < 0) {
      if (end - at < MAX_VARINT64_BYTES) return -1;
      this.onFault('bad frame length', 0);
    }
    if (len > MAX_FRAME_BYTES) this.onFault('frame past the limit', len);
    if (next + 4 > end) return -1;
    return next - at + 4 + len;
  }

  /** Hands on the frame of `size` bytes at `at`, its first `header` bytes its length and CRC, once its CRC is checked. */
  private emit(b: Buffer, at: number, size: number, header: number): void {
    if (crc32cRange(b, at + header, at + size) !== b.readUInt32BE(at + header - 4)) this.onFault('frame checksum mismatch', size);
    this.onFrame(b.subarray(at + header, at + size));
  }
}
