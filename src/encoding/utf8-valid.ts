/**
 * Where [start, end) of `buf` stops being valid UTF-8: the index of the
 * first byte of the first bad sequence, or -1 when all of it is valid.
 * Valid means what Go's utf8.Valid accepts (and protobuf requires of
 * strings): no overlong forms, no surrogates (U+D800..DFFF), nothing past
 * U+10FFFF, no truncated sequence. 0xFF is never valid, which is what
 * keeps the canonical label form `name 0xFF value 0xFF` unambiguous.
 */
export function invalidUtf8At(buf: Uint8Array, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
    } else if (b < 0xc2) {
      return i; // a stray continuation byte, or a 2-byte lead of an overlong form
    } else if (b < 0xe0) {
      if (i + 1 >= end || (buf[i + 1]! & 0xc0) !== 0x80) return i;
      i += 2;
    } else if (b < 0xf0) {
      if (i + 2 >= end) return i;
      const b1 = buf[i + 1]!;
      // E0 needs A0..BF (else overlong); ED needs 80..9F (else a surrogate).
      const lo = b === 0xe0 ? 0xa0 : 0x80;
      const hi = b === 0xed ? 0x9f : 0xbf;
      if (b1 < lo || b1 > hi || (buf[i + 2]! & 0xc0) !== 0x80) return i;
      i += 3;
    } else if (b < 0xf5) {
      if (i + 3 >= end) return i;
      const b1 = buf[i + 1]!;
      // F0 needs 90..BF (else overlong); F4 needs 80..8F (else past U+10FFFF).
      const lo = b === 0xf0 ? 0x90 : 0x80;
      const hi = b === 0xf4 ? 0x8f : 0xbf;
      if (b1 < lo || b1 > hi || (buf[i + 2]! & 0xc0) !== 0x80 || (buf[i + 3]! & 0xc0) !== 0x80) return i;
      i += 4;
    } else {
      return i; // F5..FF never start a sequence
    }
  }
  return -1;
}
