import { UsageError } from './usage-error.js';

const SIMPLE: Readonly<Record<string, number>> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };

function bad(text: string, why: string): UsageError {
  return new UsageError(`${JSON.stringify(text)} is not a quoted Go string: ${why}`);
}

/**
 * The value of a Go string literal, with Go's strconv.Unquote rules:
 * "double quoted" with escapes, `back quoted` raw (carriage returns
 * dropped), or 'one character'. Thanos reads `--label` values this way.
 * @throws UsageError naming what is wrong
 */
export function goUnquote(text: string): string {
  const q = text[0];
  if (text.length < 2 || text[text.length - 1] !== q || (q !== '"' && q !== '`' && q !== "'")) throw bad(text, 'not enclosed in matching quotes');
  const body = text.slice(1, -1);
  if (q === '`') {
    if (body.includes('`')) throw bad(text, 'a back quote inside');
    return body.replaceAll('\r', '');
  }
  const out = unescape(text, body, q);
  if (q === "'" && [...out].length !== 1) throw bad(text, 'single quotes hold exactly one character');
  return out;
}

/** The escapes of a double or single quoted body as text; bytes from \x and octal escapes must form UTF-8. */
function unescape(text: string, body: string, q: string): string {
  const bytes: number[] = [];
  const enc = new TextEncoder();
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c === q || c === '\n') throw bad(text, c === q ? 'an unescaped quote inside' : 'a newline inside');
    if (c !== '\\') {
      const cp = body.codePointAt(i)!;
      if (cp > 0xffff) i++;
      bytes.push(...enc.encode(String.fromCodePoint(cp)));
      continue;
    }
    const e = body[++i];
    if (e === undefined) throw bad(text, 'a backslash at the end');
    if (Object.hasOwn(SIMPLE, e)) bytes.push(SIMPLE[e]!);
    else if (e === q) bytes.push(q.charCodeAt(0));
    else if (e === 'x') { bytes.push(hex(text, body, i + 1, 2)); i += 2; }
    else if (e === 'u' || e === 'U') {
      const n = e === 'u' ? 4 : 8;
      const cp = hex(text, body, i + 1, n);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) throw bad(text, `\\${e}${body.slice(i + 1, i + 1 + n)} is not a valid character`);
      bytes.push(...enc.encode(String.fromCodePoint(cp)));
      i += n;
    } else if (e >= '0' && e <= '7') {
      const digits = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(digits) || parseInt(digits, 8) > 255) throw bad(text, `bad octal escape \\${digits}`);
      bytes.push(parseInt(digits, 8));
      i += 2;
    } else throw bad(text, `unknown escape \\${e}`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    throw bad(text, 'its bytes are not UTF-8');
  }
}

function hex(text: string, body: string, at: number, n: number): number {
  const digits = body.slice(at, at + n);
  if (digits.length !== n || !/^[0-9a-fA-F]+$/.test(digits)) throw bad(text, `bad hexadecimal escape '${digits}'`);
  return parseInt(digits, 16);
}
