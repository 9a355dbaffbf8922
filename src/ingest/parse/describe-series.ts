import { WireReader } from '../../encoding/wire-reader.js';

// Non-fatal: bytes that are not UTF-8 show as U+FFFD. For messages only;
// the parser itself never decodes label bytes into strings.
const decoder = new TextDecoder();

/** Longest label-set rendering put in a message; longer ones end in "…". */
export const MAX_CHARS = 400;

/** The bytes [at, at + len) of `buf` as a string (for messages). */
export function bytesText(buf: Uint8Array, at: number, len: number): string {
  return decoder.decode(buf.subarray(at, at + len));
}

/** The bytes [at, at + len) of `buf` as a quoted string (for messages). */
export function quoted(buf: Uint8Array, at: number, len: number): string {
  return JSON.stringify(bytesText(buf, at, len));
}

/**
 * The label set of the TimeSeries at [start, end) of `buf`, as written (in
 * wire order, without the tenant label), e.g. `{__name__="up", job="node"}`.
 * The bytes must already have parsed: this is for the message of the first
 * refused series, off the hot path.
 */
export function describeLabels(buf: Uint8Array, start: number, end: number): string {
  const r = new WireReader(buf);
  r.pos = start;
  const parts: string[] = [];
  let chars = 0;
  while (r.pos < end && chars <= MAX_CHARS) {
    const tag = r.tag(end);
    if (tag !== 10) {
      r.skip(tag & 7, end);
      continue;
    }
    const stop = r.len(end);
    let name = '';
    let value = '';
    while (r.pos < stop) {
      const t = r.tag(stop);
      if (t === 10 || t === 18) {
        const s = r.len(stop);
        const text = bytesText(buf, r.pos, s - r.pos);
        if (t === 10) name = text;
        else value = text;
        r.pos = s;
      } else {
        r.skip(t & 7, stop);
      }
    }
    const part = `${name}=${JSON.stringify(value)}`;
    parts.push(part);
    chars += part.length + 2;
  }
  const text = `{${parts.join(', ')}}`;
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}…}` : text;
}
