/**
 * Memory maps through Strata's own Node-API addon (native/mmap: ABI-stable,
 * so one build serves Node 20, 22 and 24), built by `npm install`.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { constants } from 'node:os';
import { createRequire } from 'node:module';

interface MmapAddon {
  map(fd: number, length: number): Buffer;
  advise(map: Buffer, advice: number): void;
  trim(): boolean;
  limitHeap(mmapThreshold: number): boolean;
  pageOutFiles(): number;
  dropFilePages(): number;
  memfd(name: string): number;
  readonly c23Shim: boolean;
  readonly MADV_DONTNEED: number;
}

const ADDON_PATH = '../../native/mmap/build/Release/strata_mmap.node';

/** Thrown when the addon is not built or does not load on this platform. */
export class MmapLoadError extends Error {
  override readonly name = 'MmapLoadError';
}

function load(): MmapAddon {
  try {
    return createRequire(import.meta.url)(ADDON_PATH) as MmapAddon;
  } catch (err) {
    throw new MmapLoadError(
      `the memory-map addon (native/mmap) does not load: ${(err as Error).message}. `
      + 'It is built by `npm install` (node-gyp and a C compiler); run `npm run build:native` to build it again.',
    );
  }
}

const mmap = load();

/**
 * Maps the first `size` bytes of `fd` read-only and shared, so the view sees
 * every later write to the file's page cache. The map outlives `fd` (and the
 * file's deletion) and is released when the returned Buffer and every view
 * of it are collected; reading a page past the file's end raises SIGBUS, so
 * callers read only bytes the file holds.
 */
export function mapFile(fd: number, size: number): Buffer {
  return mmap.map(fd, size);
}

/** The whole file at `path`, mapped read-only as mapFile maps; its descriptor is closed again. */
export function mapWholeFile(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    return mapFile(fd, fstatSync(fd).size);
  } finally {
    closeSync(fd);
  }
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

/**
 * Gives the free memory of the C heap back to the system (glibc's
 * malloc_trim; nothing elsewhere). Buffers Node allocated with malloc and
 * freed stay resident in glibc's arenas until then: after a load of 1M
 * series, 83 MiB of them. Takes a few milliseconds: call it when quiet.
 * True if any memory went back.
 */
export function trimNativeHeap(): boolean {
  return mmap.trim();
}

/**
 * Fixes glibc's mmap threshold for the rest of the process (mallopt;
 * nothing elsewhere): blocks of `mmapThreshold` bytes or more are mapped
 * on their own and unmapped when freed. Glibc's own threshold rises to
 * the largest block freed, up to 32 MiB, and blocks under it stay resident
 * in the arenas after their free. Call it once, early, before the pool
 * starts its threads. True where it applied.
 */
export function limitNativeHeap(mmapThreshold: number): boolean {
  return mmap.limitHeap(mmapThreshold);
}

/**
 * Asks the kernel to reclaim the resident pages of the process' read-only
 * file mappings (MADV_PAGEOUT): the node binary's code, which Node and
 * each worker thread's start touch (about 40 MiB), shared libraries,
 * read-only maps of data files. They are clean, so nothing is written;
 * what runs again is read back from the page cache or the file. For an
 * idle process only: a busy one would fault its code back at once. The
 * pages another process maps too (the node binary's, beside another Node
 * process) are not reclaimed; this process lets go of its mappings of them
 * (MADV_DONTNEED, where it holds no copied page: dropFilePages in
 * native/mmap). Answers the bytes of the mappings paged out, -1 where the
 * kernel cannot (Linux before 5.4).
 */
export function pageOutFileMappings(): number {
  const advised = mmap.pageOutFiles();
  mmap.dropFilePages();
  return advised;
}

/**
 * An anonymous file in memory (memfd_create, close-on-exec): a descriptor
 * whose `/proc/self/fd/N` path the dynamic loader can open, for a shared
 * object that is never written to disk. The caller closes it.
 */
export function createMemoryFile(name: string): number {
  return mmap.memfd(name);
}

/**
 * Makes the addon's definitions of glibc 2.38's `__isoc23_strtol`,
 * `__isoc23_strtoul` and `__isoc23_sscanf` visible to shared objects
 * loaded after it (reopened RTLD_GLOBAL). False where this build does not
 * define them: glibc 2.38 or later has them itself, other C libraries lack
 * the rest of what such binaries need.
 */
export function shareC23Functions(): boolean {
  if (!mmap.c23Shim) return false;
  const path = createRequire(import.meta.url).resolve(ADDON_PATH);
  process.dlopen({ exports: {} }, path, constants.dlopen.RTLD_NOW | constants.dlopen.RTLD_GLOBAL);
  return true;
}
