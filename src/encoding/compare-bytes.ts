/** Byte-wise comparison of [aAt, aAt + aLen) of `a` with [bAt, bAt + bLen) of `b`, as Go compares strings: <0, 0 or >0. */
export function compareBytes(a: Uint8Array, aAt: number, aLen: number, b: Uint8Array, bAt: number, bLen: number): number {
  const n = aLen < bLen ? aLen : bLen;
  for (let k = 0; k < n; k++) {
    const d = a[aAt + k]! - b[bAt + k]!;
    if (d !== 0) return d;
  }
  return aLen - bLen;
}
