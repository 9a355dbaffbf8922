import mmapModule from '@riaskov/mmap-io';

// The package is CommonJS with a `default` property in its typings only: at
// run time Node hands an ESM import the module.exports object itself.
const mmap = ('map' in mmapModule ? mmapModule : mmapModule.default) as typeof mmapModule.default;

/**
 * Maps the first `size` bytes of `fd` read-only and shared, so the view sees
 * every later write to the file's page cache. The map outlives `fd` (and the
 * file's deletion) and is released when the returned Buffer and every view
 * of it are collected; reading a page past the file's end raises SIGBUS, so
 * callers read only bytes the file holds.
 */
export function mapFile(fd: number, size: number): Buffer {
  return mmap.map(size, mmap.PROT_READ, mmap.MAP_SHARED, fd);
}

/**
 * Lets the process' resident pages of a map go (MADV_DONTNEED): they stay
 * in the page cache, and a later read faults them back in from the file,
 * deleted or not. The map itself is only released when the garbage
 * collector frees the Buffer, which for a quiet heap can take long: call
 * this where a map's pages will not be needed soon (a file deleted, a
 * range read once to write a block), so that they do not count in the
 * process' memory meanwhile.
 */
export function releasePages(map: Buffer): void {
  if (map.length === 0) return;
  mmap.advise(map, mmap.MADV_DONTNEED);
}
