/** A chunk segment file failed its checks: named with the byte offset. */
export class ChunkFileCorruptionError extends Error {
  readonly kind = 'corruption';
  override name = 'ChunkFileCorruptionError';
  constructor(readonly file: string, readonly offset: number, detail: string) {
    super(`chunk segment ${file} is corrupt at byte ${offset}: ${detail}`);
  }
}

export const chunkFileCorrupt = (file: string, offset: number, detail: string): ChunkFileCorruptionError =>
  new ChunkFileCorruptionError(file, offset, detail);
