// xxHash64 (seed 0 unless given), little-endian reads, as its specification
// defines it. Series lookup hashes a label set's canonical bytes with it, and
// Thanos shards by the same hash of the same bytes.

const P1: u64 = 0x9E3779B185EBCA87;
const P2: u64 = 0xC2B2AE3D27D4EB4F;
const P3: u64 = 0x165667B19E3779F9;
const P4: u64 = 0x85EBCA77C2B2AE63;
const P5: u64 = 0x27D4EB2F165667C5;

// @ts-ignore: decorator
@inline function round(acc: u64, input: u64): u64 {
  return rotl<u64>(acc + input * P2, 31) * P1;
}

// @ts-ignore: decorator
@inline function merge(acc: u64, val: u64): u64 {
  return (acc ^ round(0, val)) * P1 + P4;
}

/** xxHash64 of `len` bytes at `ptr`. */
export function xxh64(ptr: usize, len: u32, seed: u64): u64 {
  const end = ptr + <usize>len;
  let p = ptr;
  let h: u64;
  if (len >= 32) {
    let v1 = seed + P1 + P2;
    let v2 = seed + P2;
    let v3 = seed;
    let v4 = seed - P1;
    const limit = end - 32;
    do {
      v1 = round(v1, load<u64>(p));
      v2 = round(v2, load<u64>(p, 8));
      v3 = round(v3, load<u64>(p, 16));
      v4 = round(v4, load<u64>(p, 24));
      p += 32;
    } while (p <= limit);
    h = rotl<u64>(v1, 1) + rotl<u64>(v2, 7) + rotl<u64>(v3, 12) + rotl<u64>(v4, 18);
    h = merge(h, v1);
    h = merge(h, v2);
    h = merge(h, v3);
    h = merge(h, v4);
  } else {
    h = seed + P5;
  }
  h += <u64>len;
  while (p + 8 <= end) {
    h ^= round(0, load<u64>(p));
    h = rotl<u64>(h, 27) * P1 + P4;
    p += 8;
  }
  if (p + 4 <= end) {
    h ^= <u64>load<u32>(p) * P1;
    h = rotl<u64>(h, 23) * P2 + P3;
    p += 4;
  }
  while (p < end) {
    h ^= <u64>load<u8>(p) * P5;
    h = rotl<u64>(h, 11) * P1;
    p++;
  }
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

/**
 * Hashes the label bytes of `n` batch entries in place (see head.ts for the
 * entry layout): entry.hash = xxh64(labels + entry.labelsOff, entry.labelsLen).
 */
export function hashEntries(entries: usize, n: u32, labels: usize, entrySize: u32, hashAt: u32, offAt: u32, lenAt: u32): void {
  for (let i: u32 = 0; i < n; i++) {
    const e = entries + <usize>i * entrySize;
    store<u64>(e + hashAt, xxh64(labels + <usize>load<u32>(e + offAt), load<u32>(e + lenAt), 0));
  }
}
