import { Document, isAlias, isMap, isScalar, isSeq, parseAllDocuments, type Node } from 'yaml';
import { parseModelDuration } from './duration.js';

/** Makes the error for a refused value at key path `path` (`''` for the document). */
export type YamlErrorFactory = (path: string, detail: string) => Error;

/**
 * A strict reader of one YAML mapping, decoding as Thanos does with
 * gopkg.in/yaml.v2's UnmarshalStrict:
 * - YAML 1.1 (`yes`/`on` are booleans, as in yaml.v2);
 * - a key the struct does not have is an error, and so is a repeated key;
 * - a string field takes any scalar's text as written (`bucket: 0123` is "0123");
 * - a key present with a null value (`part_size:`) sets the zero value, not
 *   the default, and a null mapping zeroes every field under it.
 * Every error names the key path; the caller's factory makes it (each
 * configuration says which file it is about: `objstore config: ...`).
 */
export class YamlMap {
  private readonly read = new Set<string>();

  private constructor(
    private readonly doc: Document.Parsed,
    private readonly fail: YamlErrorFactory,
    private readonly pairs: Map<string, Node | null>,
    /** Key path of this mapping, e.g. `config.http_config` (`''` at the top). */
    readonly path: string,
    /** True when the mapping was written as null: every getter gives the zero value. */
    readonly zeroed: boolean,
  ) {}

  /**
   * The top mapping of the first YAML document in `text`; later documents
   * are ignored, as Thanos ignores them. An empty document is an empty mapping.
   */
  static parse(text: string, fail: YamlErrorFactory): YamlMap {
    const docs = parseAllDocuments(text, { version: '1.1', uniqueKeys: true, prettyErrors: false });
    const doc = docs[0];
    if (doc === undefined) return new YamlMap(new Document() as Document.Parsed, fail, new Map(), '', false);
    const err = doc.errors[0];
    if (err !== undefined) throw fail('', `not valid YAML: ${err.message.split('\n')[0]}`);
    return YamlMap.of(doc, fail, doc.contents as Node | null, '');
  }

  private static of(doc: Document.Parsed, fail: YamlErrorFactory, node: Node | null, path: string): YamlMap {
    node = resolve(doc, node);
    if (node === null || (isScalar(node) && node.value === null)) return new YamlMap(doc, fail, new Map(), path, true);
    if (!isMap(node)) throw fail(path === '' ? '' : path, `expected a mapping of keys to values, got ${describe(node)}`);
    const pairs = new Map<string, Node | null>();
    const merges: Node[] = [];
    for (const pair of node.items) {
      const keyNode = resolve(doc, pair.key as Node | null);
      const key = keyNode !== null && isScalar(keyNode) ? scalarText(keyNode) : undefined;
      if (key === undefined) throw fail(path, `a key must be a plain value, got ${describe(keyNode)}`);
      if (key === '<<') {
        // YAML 1.1 merge key, as yaml.v2 applies it: merged keys never override.
        const v = resolve(doc, pair.value as Node | null);
        if (v !== null && isSeq(v)) merges.push(...(v.items as Node[]));
        else if (v !== null) merges.push(v);
        continue;
      }
      pairs.set(key, (pair.value as Node | null) ?? null);
    }
    for (const m of merges) {
      const merged = YamlMap.of(doc, fail, m, path);
      for (const [k, v] of merged.pairs) if (!pairs.has(k)) pairs.set(k, v);
    }
    return new YamlMap(doc, fail, pairs, path, false);
  }

  /** Key path of `key` under this mapping. */
  at(key: string): string {
    return this.path === '' ? key : `${this.path}.${key}`;
  }

  /** Whether `key` is written (even as null). */
  has(key: string): boolean {
    return this.pairs.has(key);
  }

  private take(key: string): Node | null | undefined {
    this.read.add(key);
    if (!this.pairs.has(key)) return undefined;
    return resolve(this.doc, this.pairs.get(key) ?? null);
  }

  /** A string field: any scalar's text as written; null gives ''. */
  str(key: string, def = ''): string {
    if (this.zeroed) return '';
    const n = this.take(key);
    if (n === undefined) return def;
    if (n === null || (isScalar(n) && n.value === null)) return '';
    if (!isScalar(n)) throw this.fail(this.at(key), `expected a string, got ${describe(n)}`);
    return scalarText(n);
  }

  /** A boolean field (`true`/`false`, and YAML 1.1's yes/no/on/off); null gives false. */
  bool(key: string, def = false): boolean {
    if (this.zeroed) return false;
    const n = this.take(key);
    if (n === undefined) return def;
    if (n === null || (isScalar(n) && n.value === null)) return false;
    if (isScalar(n) && typeof n.value === 'boolean') return n.value;
    throw this.fail(this.at(key), `${quote(n)} is not a boolean (true or false)`);
  }

  /** An integer field; null gives 0. */
  int(key: string, def = 0, min = Number.MIN_SAFE_INTEGER): number {
    if (this.zeroed) return 0;
    const n = this.take(key);
    if (n === undefined) return def;
    if (n === null || (isScalar(n) && n.value === null)) return 0;
    if (isScalar(n) && typeof n.value === 'number' && Number.isSafeInteger(n.value)) {
      if (n.value < min) throw this.fail(this.at(key), `${quote(n)} is below ${min}`);
      return n.value;
    }
    throw this.fail(this.at(key), `${quote(n)} is not an integer`);
  }

  /**
   * An integer field behind a pointer (`*int64` in Go): undefined when the
   * key is absent or null (or the mapping is), as yaml.v2 leaves such a
   * pointer nil.
   */
  optInt(key: string, min = Number.MIN_SAFE_INTEGER): number | undefined {
    if (this.zeroed) return undefined;
    const n = this.take(key);
    if (n === undefined || n === null || (isScalar(n) && n.value === null)) return undefined;
    return this.int(key, 0, min);
  }

  /** The keys written here, in order (a Go map's keys); each counts as read. */
  keys(): string[] {
    const keys = [...this.pairs.keys()];
    for (const k of keys) this.read.add(k);
    return keys;
  }

  /** A Prometheus-style duration field (`1m30s`), in milliseconds; null gives 0. */
  duration(key: string, defMs: number): number {
    if (this.zeroed) return 0;
    const n = this.take(key);
    if (n === undefined) return defMs;
    if (n === null || (isScalar(n) && n.value === null)) return 0;
    const ms = isScalar(n) ? parseModelDuration(scalarText(n)) : undefined;
    if (ms === undefined) throw this.fail(this.at(key), `${quote(n)} is not a duration (such as 1m30s, 2m, 10s or 500ms)`);
    return ms;
  }

  /** A mapping of strings to strings (map[string]string); null gives {}. */
  strMap(key: string): Record<string, string> {
    if (this.zeroed) return {};
    const n = this.take(key);
    if (n === undefined || n === null) return {};
    const m = YamlMap.of(this.doc, this.fail, n, this.at(key));
    const out: Record<string, string> = {};
    for (const k of m.pairs.keys()) out[k] = m.str(k);
    return out;
  }

  /** The nested mapping at `key` (a struct field); missing gives an empty one, null a zeroed one. */
  map(key: string): YamlMap {
    if (this.zeroed) return new YamlMap(this.doc, this.fail, new Map(), this.at(key), true);
    const n = this.take(key);
    if (n === undefined) return new YamlMap(this.doc, this.fail, new Map(), this.at(key), false);
    return YamlMap.of(this.doc, this.fail, n, this.at(key));
  }

  /** Keys written here that no getter read. */
  unread(): string[] {
    return [...this.pairs.keys()].filter((k) => !this.read.has(k));
  }

  /** Throws for the first key no getter read: Thanos parses strictly. */
  finish(known: readonly string[]): void {
    const extra = this.unread()[0];
    if (extra !== undefined) throw this.fail(this.at(extra), `unknown key; the keys here are ${known.join(', ')}`);
  }
}

function resolve(doc: Document.Parsed, node: Node | null): Node | null {
  let n: unknown = node;
  for (let i = 0; i < 32 && isAlias(n); i++) n = n.resolve(doc) ?? null;
  return (n as Node | null) ?? null;
}

/** A scalar's text as written, which yaml.v2 gives a string field whatever the scalar resolves to. */
function scalarText(n: Node): string {
  const s = n as { value: unknown; source?: string; type?: string };
  if (typeof s.value === 'string') return s.value;
  if (s.source !== undefined && s.type === 'PLAIN') return s.source;
  return String(s.value);
}

function quote(n: Node): string {
  if (isScalar(n)) return JSON.stringify(scalarText(n));
  return describe(n);
}

function describe(n: Node | null): string {
  if (n === null) return 'nothing';
  if (isMap(n)) return 'a mapping';
  if (isSeq(n)) return 'a list';
  if (isScalar(n)) return JSON.stringify(scalarText(n));
  return 'a value';
}
