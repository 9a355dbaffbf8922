import { PROG, PROG_FOLD, PROG_SLACK, PROG_TERM, PROG_TRAIL_SHIFT, PROG_UNSURE_NON_ASCII } from '../wasm/layout.js';
import type { RegexShape } from './regex-shape.js';

const encoder = new TextEncoder();

/**
 * Encodes a recognised pattern as a program for `matchValues`
 * (assembly/matcher.ts; layout PROG and PROG_TERM): u32 words flags, term
 * count, then per term its shape (lead | trail << PROG_TRAIL_SHIFT), its
 * literal's offset from the program start and length; then the literals'
 * UTF-8 bytes and PROG_SLACK zero bytes (the wasm compares 16 bytes at a
 * time). Position independent, so it is built once per pattern and copied
 * as is.
 */
export function encodeProgram(shape: RegexShape): Uint8Array {
  const lits = shape.terms.map((t) => encoder.encode(t.literal));
  const head = PROG.terms + PROG_TERM.size * lits.length;
  const total = head + lits.reduce((n, l) => n + l.length, 0);
  const bytes = new Uint8Array(((total + 3) & ~3) + PROG_SLACK);
  const words = new DataView(bytes.buffer);
  // Go's (?i) also folds k with U+212A and s with U+017F: values with
  // non-ASCII bytes are then left to the RE2 engine.
  const unsure = shape.foldCase && shape.terms.some((t) => t.literal.includes('k') || t.literal.includes('s'));
  words.setUint32(PROG.flags, (shape.foldCase ? PROG_FOLD : 0) | (unsure ? PROG_UNSURE_NON_ASCII : 0), true);
  words.setUint32(PROG.termCount, lits.length, true);
  let at = head;
  shape.terms.forEach((t, i) => {
    const lit = lits[i]!;
    const term = PROG.terms + PROG_TERM.size * i;
    words.setUint32(term + PROG_TERM.shape, t.lead | (t.trail << PROG_TRAIL_SHIFT), true);
    words.setUint32(term + PROG_TERM.literalAt, at, true);
    words.setUint32(term + PROG_TERM.literalLength, lit.length, true);
    bytes.set(lit, at);
    at += lit.length;
  });
  return bytes;
}
