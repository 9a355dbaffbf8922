/**
 * Free pairs kept for reuse: one a multipart upload in flight, for the
 * shipper's two files at a time (more uploads at once get pairs of their
 * own, freed with them).
 */
export const SPARE_PAIRS = 2;

/** How long spare pairs outlive the last upload: one upload follows another within it when the shipper ships. */
export const PART_BUFFERS_IDLE_MS = 5_000;

/**
 * The part buffers of multipart uploads: two a file upload (one part sent
 * while the next is read), lent and given back, kept for the next upload
 * (up to SPARE_PAIRS pairs of the same part size) and dropped after
 * PART_BUFFERS_IDLE_MS without uploads. Each is a Buffer over a
 * SharedArrayBuffer, so that the hasher's thread reads it in place. Reusing
 * them spares allocating and zeroing 32 MiB a file, and keeps the hasher's
 * thread from holding on to many (its views keep a buffer alive until its
 * rare garbage collection).
 */
export class PartBuffers {
  private spare: Buffer[][] = [];
  private idle: NodeJS.Timeout | undefined;

  /** Two buffers of `partSize` bytes, for one upload; give them back with give(). */
  take(partSize: number): Buffer[] {
    this.stopIdle();
    const i = this.spare.findIndex((pair) => pair[0]!.length === partSize);
    if (i >= 0) return this.spare.splice(i, 1)[0]!;
    return [sharedPart(partSize), sharedPart(partSize)];
  }

  /** Takes back a pair from take(), once nothing reads or sends from it any more. */
  give(pair: Buffer[]): void {
    if (this.spare.length < SPARE_PAIRS && !this.spare.includes(pair)) this.spare.push(pair);
    this.stopIdle();
    this.idle = setTimeout(() => {
      this.idle = undefined;
      this.spare = [];
    }, PART_BUFFERS_IDLE_MS);
    this.idle.unref();
  }

  /** Pairs kept for reuse now (for tests and memory accounting). */
  get sparePairs(): number {
    return this.spare.length;
  }

  /** Drops the spare pairs. */
  clear(): void {
    this.stopIdle();
    this.spare = [];
  }

  private stopIdle(): void {
    if (this.idle !== undefined) clearTimeout(this.idle);
    this.idle = undefined;
  }
}

/** A part buffer the hasher's thread can read: a Buffer over a SharedArrayBuffer. */
function sharedPart(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size));
}
