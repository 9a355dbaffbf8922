import mmapModule from '@riaskov/mmap-io';

// The package is CommonJS with a `default` property in its typings only: at
// run time Node hands an ESM import the module.exports object itself.
const mmap = ('map' in mmapModule ? mmapModule : mmapModule.default) as typeof mmapModule.default;

/**
 * Maps the first `size` bytes of `fd` read-only and shared, so the view sees
 * every later write to the file's page cache. The map outlives `fd` and is
 * released when the returned Buffer and every view of it are collected;
 * reading a page past the file's end raises SIGBUS, so callers read only
 * bytes the file holds.
 */
export function mapFile(fd: number, size: number): Buffer {
  return mmap.map(size, mmap.PROT_READ, mmap.MAP_SHARED, fd);
}
