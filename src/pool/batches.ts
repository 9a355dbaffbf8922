/**
 * Column batches that cross threads. Each is a few typed arrays, moved (not
 * copied) between threads; nothing in them is a per-sample JS object.
 */

/** Samples of many series: series i holds samples [offsets[i], offsets[i + 1]). */
export interface SampleBatch {
  timestamps: BigInt64Array;
  values: Float64Array;
  /** series count + 1 entries, starting at 0. */
  offsets: Uint32Array;
}

/** Many chunks back to back: chunk i is data[offsets[i], offsets[i + 1]). */
export interface ChunkBatch {
  data: Uint8Array;
  /** chunk count + 1 entries, starting at 0. */
  offsets: Uint32Array;
}

/** Checks that offsets start at 0, never decrease and end at `length`. */
export function checkOffsets(offsets: Uint32Array, length: number, what: string): void {
  if (offsets.length === 0 || offsets[0] !== 0) throw new RangeError(`${what}: offsets must start with 0`);
  for (let i = 1; i < offsets.length; i++) {
    if (offsets[i]! < offsets[i - 1]!) throw new RangeError(`${what}: offsets decrease at ${i}`);
  }
  if (offsets[offsets.length - 1] !== length) {
    throw new RangeError(`${what}: offsets end at ${offsets[offsets.length - 1]} but there are ${length} elements`);
  }
}

// A batch crosses back from a worker as one ArrayBuffer (one allocation, one
// transfer): a 16-byte header, then its arrays, each 8-byte aligned.
const HEADER = 16;
const align8 = (n: number): number => (n + 7) & ~7;

/** Allocates a packed SampleBatch of `samples` samples in `series` series. */
export function allocSampleBatch(samples: number, series: number): { buffer: ArrayBuffer; batch: SampleBatch } {
  const offsetsAt = HEADER + samples * 16;
  const buffer = new ArrayBuffer(offsetsAt + align8((series + 1) * 4));
  const head = new Uint32Array(buffer, 0, 4);
  head[0] = samples;
  head[1] = series;
  return { buffer, batch: viewSampleBatch(buffer) };
}

/** Views over a buffer made by allocSampleBatch. */
export function viewSampleBatch(buffer: ArrayBuffer): SampleBatch {
  const [samples, series] = new Uint32Array(buffer, 0, 2) as unknown as [number, number];
  return {
    timestamps: new BigInt64Array(buffer, HEADER, samples),
    values: new Float64Array(buffer, HEADER + samples * 8, samples),
    offsets: new Uint32Array(buffer, HEADER + samples * 16, series + 1),
  };
}

/** Packs chunks into one buffer laid out for viewChunkBatch. */
export function packChunkBatch(chunks: readonly Uint8Array[]): ArrayBuffer {
  const offsetsBytes = align8((chunks.length + 1) * 4);
  let total = 0;
  for (const c of chunks) total += c.length;
  const buffer = new ArrayBuffer(HEADER + offsetsBytes + total);
  const head = new Uint32Array(buffer, 0, 4);
  head[0] = chunks.length;
  head[1] = total;
  const offsets = new Uint32Array(buffer, HEADER, chunks.length + 1);
  const data = new Uint8Array(buffer, HEADER + offsetsBytes, total);
  let at = 0;
  chunks.forEach((c, i) => {
    data.set(c, at);
    at += c.length;
    offsets[i + 1] = at;
  });
  return buffer;
}

/** Views over a buffer made by packChunkBatch. */
export function viewChunkBatch(buffer: ArrayBuffer): ChunkBatch {
  const [count, total] = new Uint32Array(buffer, 0, 2) as unknown as [number, number];
  const offsetsBytes = align8((count + 1) * 4);
  return {
    offsets: new Uint32Array(buffer, HEADER, count + 1),
    data: new Uint8Array(buffer, HEADER + offsetsBytes, total),
  };
}
