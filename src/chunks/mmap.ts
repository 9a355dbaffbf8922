import mmapModule from '@riaskov/mmap-io';

/**
 * The parts of @riaskov/mmap-io we use. The package is CommonJS whose
 * typings declare a default export; at run time the default import is the
 * module object itself, so it is typed here by hand.
 */
export interface Mmap {
  map(size: number, protection: number, flags: number, fd: number, offset?: number): Buffer;
  readonly PROT_READ: number;
  readonly MAP_SHARED: number;
}

export const mmap = mmapModule as unknown as Mmap;
