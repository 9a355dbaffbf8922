/**
 * PromQL series selectors, as the HTTP API's `match[]` takes them:
 * `up`, `up{job="api"}`, `{__name__=~"http_.*", code!~"2.."}`, and
 * Prometheus 3's quoted names (`{"http.requests", "service.name"="api"}`).
 *
 * Grammar (whitespace and `#` comments between tokens, as in PromQL):
 *
 *     selector := metric-name [ "{" [ item { "," item } [ "," ] ] "}" ]
 *               | "{" [ item { "," item } [ "," ] ] "}"
 *     item     := label-name op string | string op string | string   (a string alone is the metric name)
 *     op       := "=" | "!=" | "=~" | "!~"
 *     string   := "..." | '...' (Go escapes) | `...` (raw)
 *
 * Rules kept from Prometheus' parser: the metric name is given at most once;
 * at least one matcher must not match the empty string; regular expressions
 * must compile (Go RE2, fully anchored).
 */
import { compileMatcher, MatchType, type LabelMatcher } from './index.js';

/** Thrown for a selector that does not parse or break the rules; answered as bad_data (400). */
export class SelectorError extends Error {
  readonly kind = 'invalid-argument';
  override readonly name = 'SelectorError';
}

const NAME = '__name__';

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isLetter = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses one selector into matchers (the metric name as an EQ matcher on `__name__`, first). */
export function parseSelector(input: string): LabelMatcher[] {
  return new SelectorParser(input).parse();
}

class SelectorParser {
  private pos = 0;

  constructor(private readonly s: string) {}

  parse(): LabelMatcher[] {
    const matchers: LabelMatcher[] = [];
    let name: string | undefined;
    this.skip();
    if (this.pos < this.s.length && (isLetter(this.code()) || this.code() === 0x3a /* : */)) {
      name = this.identifier(true);
      this.skip();
    }
    let braces = false;
    if (this.peek('{')) {
      braces = true;
      name = this.braces(matchers, name);
      this.skip();
    }
    if (this.pos < this.s.length) {
      throw this.error(name === undefined && !braces ? `expected a metric name or '{'` : `unexpected ${this.shown()} after the selector`);
    }
    if (name === undefined && !braces) throw this.error('expected a metric name or \'{\'');
    if (name !== undefined) matchers.unshift({ type: MatchType.EQ, name: NAME, value: name });
    let nonEmpty = false;
    for (const m of matchers) {
      if (!compileMatcher(m).matchesEmpty) nonEmpty = true; // also compiles: a bad regex throws here
    }
    if (!nonEmpty) throw new SelectorError(`${JSON.stringify(this.s)}: a selector must contain at least one matcher that does not match the empty string`);
    return matchers;
  }

  /** `{ ... }`; returns the metric name, given outside (`outer`) or as a string alone inside. */
  private braces(out: LabelMatcher[], outer: string | undefined): string | undefined {
    let name = outer;
    this.pos++; // {
    this.skip();
    while (!this.peek('}')) {
      if (this.pos >= this.s.length) throw this.error(`unterminated '{': expected '}'`);
      let label: string;
      const c = this.code();
      if (c === 0x22 || c === 0x27 || c === 0x60) {
        const quoted = this.string();
        this.skip();
        if (this.peek(',') || this.peek('}')) {
          if (name !== undefined) throw this.nameTwice(name, quoted);
          name = quoted;
          if (this.peek(',')) this.pos++;
          this.skip();
          continue;
        }
        label = quoted;
      } else if (isLetter(c)) {
        label = this.identifier(false);
      } else {
        throw this.error(`expected a label name, a quoted string or '}', got ${this.shown()}`);
      }
      this.skip();
      const type = this.op();
      this.skip();
      const c2 = this.pos < this.s.length ? this.code() : -1;
      if (c2 !== 0x22 && c2 !== 0x27 && c2 !== 0x60) throw this.error(`expected a quoted string after the operator, got ${this.shown()}`);
      const value = this.string();
      if (label === NAME && name !== undefined) throw this.nameTwice(name, value);
      out.push({ type, name: label, value });
      this.skip();
      if (this.peek(',')) {
        this.pos++;
        this.skip();
      } else if (!this.peek('}')) {
        throw this.error(`expected ',' or '}' after a matcher, got ${this.shown()}`);
      }
    }
    this.pos++; // }
    // A __name__ matcher inside counts as the name for the rule above.
    if (name !== undefined && outer === undefined) {
      const other = out.find((m) => m.name === NAME);
      if (other !== undefined) throw this.nameTwice(name, other.value);
    }
    return name;
  }

  private op(): LabelMatcher['type'] {
    const two = this.s.slice(this.pos, this.pos + 2);
    if (two === '!=') return this.take(2, MatchType.NEQ);
    if (two === '=~') return this.take(2, MatchType.RE);
    if (two === '!~') return this.take(2, MatchType.NRE);
    if (this.peek('=')) return this.take(1, MatchType.EQ);
    throw this.error(`expected one of '=', '!=', '=~', '!~', got ${this.shown()}`);
  }

  private take<T>(n: number, value: T): T {
    this.pos += n;
    return value;
  }

  /** A metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or a label name (no colons). */
  private identifier(colons: boolean): string {
    const start = this.pos;
    while (this.pos < this.s.length) {
      const c = this.code();
      if (isLetter(c) || isDigit(c) || (colons && c === 0x3a)) this.pos++;
      else break;
    }
    return this.s.slice(start, this.pos);
  }

  /** A string literal at pos: "..." or '...' with Go escapes, or `...` raw. */
  private string(): string {
    const start = this.pos;
    const quote = this.code();
    this.pos++;
    if (quote === 0x60) {
      const end = this.s.indexOf('`', this.pos);
      if (end < 0) throw this.errorAt(start, 'unterminated raw string');
      this.pos = end + 1;
      return this.s.slice(start + 1, end).replaceAll('\r', ''); // Go drops carriage returns from raw strings
    }
    const bytes: number[] = [];
    for (;;) {
      if (this.pos >= this.s.length) throw this.errorAt(start, 'unterminated quoted string');
      const c = this.s.codePointAt(this.pos)!;
      if (c === quote) {
        this.pos++;
        break;
      }
      if (c === 0x0a) throw this.errorAt(start, 'unterminated quoted string (a newline inside)');
      if (c === 0x5c /* \ */) {
        this.escape(quote, bytes);
        continue;
      }
      pushUtf8(bytes, c);
      this.pos += c > 0xffff ? 2 : 1;
    }
    try {
      return fatalUtf8.decode(Uint8Array.from(bytes));
    } catch {
      throw this.errorAt(start, 'the string is not valid UTF-8 (check its \\x and octal escapes)');
    }
  }

  /** One escape sequence at pos (a backslash), as Go's strconv.Unquote reads it. */
  private escape(quote: number, out: number[]): void {
    const at = this.pos;
    const c = this.s.charCodeAt(at + 1);
    this.pos += 2;
    switch (c) {
      case 0x61: out.push(0x07); return; // \a
      case 0x62: out.push(0x08); return; // \b
      case 0x66: out.push(0x0c); return; // \f
      case 0x6e: out.push(0x0a); return; // \n
      case 0x72: out.push(0x0d); return; // \r
      case 0x74: out.push(0x09); return; // \t
      case 0x76: out.push(0x0b); return; // \v
      case 0x5c: out.push(0x5c); return; // \\
      case 0x78: out.push(this.hex(2, at)); return; // \xHH: one byte
      case 0x75: // \uHHHH
      case 0x55: { // \UHHHHHHHH
        const rune = this.hex(c === 0x75 ? 4 : 8, at);
        if (rune > 0x10ffff || (rune >= 0xd800 && rune <= 0xdfff)) throw this.errorAt(at, `escape ${this.s.slice(at, this.pos)} is not a valid Unicode code point`);
        pushUtf8(out, rune);
        return;
      }
      default:
        if (c === quote) {
          out.push(c);
          return;
        }
        if (c >= 0x30 && c <= 0x37) { // \NNN: three octal digits, one byte
          const digits = this.s.slice(at + 1, at + 4);
          if (!/^[0-7]{3}$/.test(digits) || Number.parseInt(digits, 8) > 255) throw this.errorAt(at, `invalid octal escape \\${digits}`);
          this.pos = at + 4;
          out.push(Number.parseInt(digits, 8));
          return;
        }
        throw this.errorAt(at, `unknown escape sequence ${JSON.stringify(this.s.slice(at, at + 2))}`);
    }
  }

  private hex(n: number, at: number): number {
    const digits = this.s.slice(this.pos, this.pos + n);
    if (digits.length !== n || ![...digits].every((d) => isHex(d.charCodeAt(0)))) {
      throw this.errorAt(at, `escape ${JSON.stringify(this.s.slice(at, this.pos + n))} needs ${n} hexadecimal digits`);
    }
    this.pos += n;
    return Number.parseInt(digits, 16);
  }

  /** Skips whitespace and # comments. */
  private skip(): void {
    while (this.pos < this.s.length) {
      const c = this.code();
      if (isSpace(c)) this.pos++;
      else if (c === 0x23 /* # */) {
        const nl = this.s.indexOf('\n', this.pos);
        this.pos = nl < 0 ? this.s.length : nl + 1;
      } else break;
    }
  }

  private code(): number {
    return this.s.charCodeAt(this.pos);
  }

  private peek(ch: string): boolean {
    return this.s.startsWith(ch, this.pos);
  }

  private shown(): string {
    return this.pos >= this.s.length ? 'the end' : JSON.stringify(this.s.slice(this.pos, this.pos + 10));
  }

  private nameTwice(a: string, b: string): SelectorError {
    return new SelectorError(`${JSON.stringify(this.s)}: the metric name must not be set twice: ${JSON.stringify(a)} or ${JSON.stringify(b)}`);
  }

  private error(what: string): SelectorError {
    return this.errorAt(this.pos, what);
  }

  private errorAt(pos: number, what: string): SelectorError {
    return new SelectorError(`${JSON.stringify(this.s)}: parse error at character ${pos + 1}: ${what}`);
  }
}

function pushUtf8(out: number[], cp: number): void {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
}
