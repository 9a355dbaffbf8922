/** A head chunk found damaged when read (its checksum or framing wrong): the read fails, nothing else. */
export class ChunkFileCorruption extends Error {
  override readonly name = 'ChunkFileCorruption';
  constructor(readonly file: string, readonly offset: number, reason: string) {
    super(`head chunk file ${file}, chunk at ${offset}: ${reason}`);
  }
}

/** The error for a damaged chunk at `offset` of `file`. */
export const chunkCorrupted = (file: string, offset: number, reason: string): ChunkFileCorruption =>
  new ChunkFileCorruption(file, offset, reason);
