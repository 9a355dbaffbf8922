/**
 * Constants of the WAL's on-disk format (docs/format/wal.md) and the names
 * of its files. Changing any value here changes the format: bump
 * FORMAT_VERSION and remake test/fixtures/wal.
 */

/** "SWAL" in ASCII, big-endian: readable in a hex dump, unlike a random number. */
export const MAGIC = 0x5357414c;

/** Version 1: the layout described in docs/format/wal.md. */
export const FORMAT_VERSION = 1;

/** The kind byte of a file header: a segment, or a checkpoint with the same framing. */
export const KIND_SEGMENT = 1;
export const KIND_CHECKPOINT = 2;

/**
 * File header: magic u32, version u8, kind u8, reserved u16 (0), sequence
 * u32 (the number in the file's name), CRC32C u32 of the 12 bytes before.
 * 16 bytes keep the first record aligned for a hex dump.
 */
export const FILE_HEADER_BYTES = 16;

/**
 * Record frame header: type u8, payload length u32, header CRC u32 (of type
 * and length), record CRC u32 (of type, length and payload), all big-endian.
 * The header CRC lets a reader trust the length before it trusts the
 * payload, so a damaged length in the middle of a file reads as corruption,
 * never as a torn tail that would drop the acknowledged records after it.
 */
export const FRAME_HEADER_BYTES = 13;

/** Offsets inside the frame header. */
export const FRAME_TYPE = 0;
export const FRAME_LENGTH = 1;
export const FRAME_HEADER_CRC = 5;
export const FRAME_CRC = 9;

/**
 * Largest payload accepted. Replay holds one whole file in memory, so this
 * bounds its buffer; a batch record is a few MB at most, so 256 MiB leaves
 * room while keeping a damaged file from asking for gigabytes.
 */
export const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;

/** Record types are 1..255; 0 is never a record, so zero-filled space never parses as one. */
export const MIN_RECORD_TYPE = 1;
export const MAX_RECORD_TYPE = 255;

/** Sequence numbers are written with at least this many digits, so names sort as numbers do. */
const NAME_DIGITS = 8;

/** Largest sequence number: it is stored as a u32 in the file header. */
export const MAX_SEQUENCE = 0xffff_ffff;

const SEGMENT_RE = /^(\d{8,10})$/;
const CHECKPOINT_RE = /^checkpoint\.(\d{8,10})$/;
const TEMP_RE = /^checkpoint\.\d{8,10}\.tmp$/;

/** File name of segment `n`: `00000042`. */
export function segmentName(n: number): string {
  return String(n).padStart(NAME_DIGITS, '0');
}

/** File name of checkpoint `n`: `checkpoint.00000042`. */
export function checkpointName(n: number): string {
  return `checkpoint.${segmentName(n)}`;
}

/** File name a checkpoint is written under before its rename. */
export function checkpointTempName(n: number): string {
  return `${checkpointName(n)}.tmp`;
}

/** What a file name in the WAL directory stands for. */
export type WalFileName =
  | { kind: 'segment'; n: number }
  | { kind: 'checkpoint'; n: number }
  | { kind: 'temp' }
  | { kind: 'other' };

export function parseWalFileName(name: string): WalFileName {
  // Only the canonical spelling counts, so two names never stand for one number.
  const canonical = (digits: string | undefined) =>
    digits !== undefined && Number(digits) <= MAX_SEQUENCE && segmentName(Number(digits)) === digits;
  let m = SEGMENT_RE.exec(name);
  if (canonical(m?.[1])) return { kind: 'segment', n: Number(m?.[1]) };
  m = CHECKPOINT_RE.exec(name);
  if (canonical(m?.[1])) return { kind: 'checkpoint', n: Number(m?.[1]) };
  if (TEMP_RE.test(name)) return { kind: 'temp' };
  return { kind: 'other' };
}
