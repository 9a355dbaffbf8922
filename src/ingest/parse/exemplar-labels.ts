import type { ExemplarBatchBuilder } from '../../record/exemplar-batch.js';
import { compareBytes } from '../../encoding/bytes.js';
import { invalidUtf8At } from '../../encoding/utf8.js';

/**
 * Gathers one exemplar's labels (positions of names and values in the
 * request bytes, in wire order) and writes them in canonical form into an
 * exemplar batch builder: sorted by name, labels with an empty value left out,
 * as Prometheus keeps an exemplar's labels (it sorts them when it reads
 * them, and drops empty ones before storing). Exemplars carry a label or
 * two (a trace id): an insertion sort over positions, no strings made.
 */
export class ExemplarLabels {
  /** Four int32 per label: name at, name length, value at, value length. */
  private pos = new Int32Array(4 * 8);
  private n = 0;
  /** Where the last write() put the labels in the builder's label bytes. */
  off = 0;
  len = 0;
  /** The first byte that is not UTF-8, when write() refused the labels. */
  badByteAt = -1;

  reset(): void {
    this.n = 0;
  }

  push(nameAt: number, nameLen: number, valueAt: number, valueLen: number): void {
    if ((this.n + 1) * 4 > this.pos.length) {
      const next = new Int32Array(this.pos.length * 2);
      next.set(this.pos);
      this.pos = next;
    }
    const p = this.pos;
    const w = this.n * 4;
    p[w] = nameAt;
    p[w + 1] = nameLen;
    p[w + 2] = valueAt;
    p[w + 3] = valueLen;
    this.n++;
  }

  /**
   * Writes the labels gathered since reset() into `out`, sorted; false
   * (nothing written, `badByteAt` set) when a name or value kept is not
   * valid UTF-8.
   */
  write(buf: Uint8Array, out: ExemplarBatchBuilder): boolean {
    const p = this.pos;
    const n = this.n;
    // Insertion sort of the label positions by name (stable: duplicates keep wire order).
    for (let i = 1; i < n; i++) {
      const a = p[i * 4]!, b = p[i * 4 + 1]!, c = p[i * 4 + 2]!, d = p[i * 4 + 3]!;
      let j = i - 1;
      while (j >= 0 && compareBytes(buf, p[j * 4]!, p[j * 4 + 1]!, buf, a, b) > 0) {
        p.copyWithin((j + 1) * 4, j * 4, j * 4 + 4);
        j--;
      }
      p[(j + 1) * 4] = a;
      p[(j + 1) * 4 + 1] = b;
      p[(j + 1) * 4 + 2] = c;
      p[(j + 1) * 4 + 3] = d;
    }
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      if (p[i * 4 + 3] === 0) continue;
      const nameBad = invalidUtf8At(buf, p[i * 4]!, p[i * 4]! + p[i * 4 + 1]!);
      const bad = nameBad >= 0 ? nameBad : invalidUtf8At(buf, p[i * 4 + 2]!, p[i * 4 + 2]! + p[i * 4 + 3]!);
      if (bad >= 0) {
        this.badByteAt = bad;
        return false;
      }
      bytes += p[i * 4 + 1]! + p[i * 4 + 3]! + 2;
    }
    out.reserveLabels(bytes);
    const labels = out.labels;
    let o = out.l;
    this.off = o;
    for (let i = 0; i < n; i++) {
      const valueLen = p[i * 4 + 3]!;
      if (valueLen === 0) continue;
      const nameAt = p[i * 4]!;
      const nameLen = p[i * 4 + 1]!;
      const valueAt = p[i * 4 + 2]!;
      labels.set(buf.subarray(nameAt, nameAt + nameLen), o);
      o += nameLen;
      labels[o++] = 0xff;
      labels.set(buf.subarray(valueAt, valueAt + valueLen), o);
      o += valueLen;
      labels[o++] = 0xff;
    }
    this.len = o - this.off;
    out.l = o;
    return true;
  }
}
