/**
 * uWebSockets.js' Node 24 binary on glibc older than 2.38.
 *
 * The package's Linux binary for Node 24 (ABI 137) was linked against
 * glibc 2.38 and needs three of its functions only: `__isoc23_strtol`,
 * `__isoc23_strtoul` and `__isoc23_sscanf`. On an older glibc (Debian 12
 * has 2.36) the loader refuses the whole file ("version `GLIBC_2.38' not
 * found"). The adapted copy made here, in memory, asks for those three
 * without a version and marks its need for GLIBC_2.38 weak, so the loader
 * takes the file; the three functions come from Strata's own addon
 * (native/mmap), reopened RTLD_GLOBAL first. Any other symbol that needs
 * 2.38 stops the adaptation with an error: nothing is loaded half-linked.
 * See docs/uwebsockets.md.
 */
import { closeSync, readFileSync, writeSync } from 'node:fs';
import { createMemoryFile, shareC23Functions } from '../files/mmap.js';

/** The version the binary asks for that an older glibc lacks. */
export const NEWER_GLIBC = 'GLIBC_2.38';

/** The functions of {@link NEWER_GLIBC} that native/mmap supplies on an older glibc. */
export const SUPPLIED_FUNCTIONS: ReadonlySet<string> = new Set(['__isoc23_strtol', '__isoc23_strtoul', '__isoc23_sscanf']);

const SHT_DYNSYM = 11;
const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;
const VER_FLG_WEAK = 0x2;
const VER_NDX_GLOBAL = 1;

/** Thrown when a binary cannot be adapted: not ELF64 little-endian, or a need this module does not cover. */
export class ElfAdaptError extends Error {
  override readonly name = 'ElfAdaptError';
}

interface Section {
  readonly type: number;
  readonly offset: number;
  readonly size: number;
  readonly link: number;
  readonly info: number;
  readonly entrySize: number;
}

/** What {@link relaxVersionNeed} changed. */
export interface Relaxed {
  /** The dynamic symbols whose version requirement was cleared. */
  readonly symbols: readonly string[];
  /** False when the binary did not ask for the version at all (nothing changed). */
  readonly changed: boolean;
}

/**
 * Edits an ELF64 little-endian shared object in place so that it loads
 * where `version` is missing: each dynamic symbol bound to `version`
 * (which must all be in `allowed`) is asked for without a version, and the
 * need for `version` is marked weak. Only existing bytes change.
 */
export function relaxVersionNeed(file: Buffer, version: string, allowed: ReadonlySet<string>): Relaxed {
  const sections = readSections(file);
  const dynsym = sections.find((s) => s.type === SHT_DYNSYM);
  const versym = sections.find((s) => s.type === SHT_GNU_VERSYM);
  const verneed = sections.find((s) => s.type === SHT_GNU_VERNEED);
  if (dynsym === undefined || versym === undefined || verneed === undefined) {
    throw new ElfAdaptError('no dynamic symbols or symbol versions');
  }
  const dynstr = sections[dynsym.link];
  if (dynstr === undefined) throw new ElfAdaptError('the dynamic symbols name no string table');
  const name = (at: number): string => readString(file, dynstr, at);

  const indexes = new Set<number>();
  let needAt = verneed.offset;
  for (let n = 0; n < verneed.info; n++) {
    const count = file.readUInt16LE(needAt + 2);
    let auxAt = needAt + file.readUInt32LE(needAt + 8);
    for (let a = 0; a < count; a++) {
      if (name(file.readUInt32LE(auxAt + 8)) === version) {
        indexes.add(file.readUInt16LE(auxAt + 6));
        file.writeUInt16LE(file.readUInt16LE(auxAt + 4) | VER_FLG_WEAK, auxAt + 4);
      }
      auxAt += file.readUInt32LE(auxAt + 12);
    }
    needAt += file.readUInt32LE(needAt + 12);
  }
  if (indexes.size === 0) return { symbols: [], changed: false };

  const symbols: string[] = [];
  const entrySize = dynsym.entrySize || 24;
  const count = Math.floor(dynsym.size / entrySize);
  for (let i = 0; i < count; i++) {
    const versionAt = versym.offset + i * 2;
    if (!indexes.has(file.readUInt16LE(versionAt) & 0x7fff)) continue;
    const symbol = name(file.readUInt32LE(dynsym.offset + i * entrySize));
    if (!allowed.has(symbol)) {
      throw new ElfAdaptError(`${symbol} needs ${version}, which is not supplied (only ${[...allowed].join(', ')})`);
    }
    file.writeUInt16LE(VER_NDX_GLOBAL, versionAt);
    symbols.push(symbol);
  }
  return { symbols, changed: true };
}

function readSections(file: Buffer): Section[] {
  if (file.length < 64 || file.readUInt32BE(0) !== 0x7f454c46) throw new ElfAdaptError('not an ELF file');
  if (file[4] !== 2 || file[5] !== 1) throw new ElfAdaptError('not a 64-bit little-endian ELF file');
  const tableAt = Number(file.readBigUInt64LE(0x28));
  const headerSize = file.readUInt16LE(0x3a);
  const count = file.readUInt16LE(0x3c);
  if (headerSize < 64 || tableAt + headerSize * count > file.length) throw new ElfAdaptError('section headers out of the file');
  const sections: Section[] = [];
  for (let i = 0; i < count; i++) {
    const at = tableAt + i * headerSize;
    const section: Section = {
      type: file.readUInt32LE(at + 4),
      offset: Number(file.readBigUInt64LE(at + 24)),
      size: Number(file.readBigUInt64LE(at + 32)),
      link: file.readUInt32LE(at + 40),
      info: file.readUInt32LE(at + 44),
      entrySize: Number(file.readBigUInt64LE(at + 56)),
    };
    if (section.type !== 8 && section.offset + section.size > file.length) throw new ElfAdaptError(`section ${i} out of the file`);
    sections.push(section);
  }
  return sections;
}

function readString(file: Buffer, table: Section, at: number): string {
  const start = table.offset + at;
  const end = file.indexOf(0, start);
  if (at >= table.size || end < 0 || end >= table.offset + table.size) throw new ElfAdaptError('a name out of its string table');
  return file.toString('latin1', start, end);
}

/**
 * Whether a load error is the loader refusing `path` for want of
 * {@link NEWER_GLIBC}: the one failure {@link loadAdapted} answers.
 */
export function wantsNewerGlibc(err: unknown): boolean {
  return err instanceof Error && err.message.includes(`version \`${NEWER_GLIBC}' not found`);
}

/**
 * Loads an adapted copy of the Node addon at `path` (see the module's
 * comment) from an anonymous memory file, and answers its exports. Throws
 * when this C library or build cannot supply the missing functions, or
 * when the binary needs more of the newer glibc than those.
 */
export function loadAdapted(path: string): unknown {
  const file = readFileSync(path);
  const relaxed = relaxVersionNeed(file, NEWER_GLIBC, SUPPLIED_FUNCTIONS);
  if (!relaxed.changed) throw new ElfAdaptError(`${path} does not ask for ${NEWER_GLIBC}`);
  if (!shareC23Functions()) {
    throw new ElfAdaptError(`this build of native/mmap does not supply ${[...SUPPLIED_FUNCTIONS].join(', ')} (glibc 2.38 or later, or not glibc)`);
  }
  const fd = createMemoryFile('uws-adapted.node');
  try {
    for (let at = 0; at < file.length; ) at += writeSync(fd, file, at);
    const module = { exports: {} };
    process.dlopen(module, `/proc/self/fd/${fd}`);
    return module.exports;
  } finally {
    closeSync(fd);
  }
}
