import { compareUtf8, hasSurrogate } from '../encoding/utf8.js';
import { FNV_OFFSET, FNV_PRIME, LabelDict } from './label-dict.js';
import { DeletedIds, PostingsLists } from './postings-lists.js';
import { selectPostings, type IndexReader } from './select.js';
import { PostingsAlgebra } from './set-ops.js';
import type { LabelMatcher } from './types.js';

const NO_VALUES: readonly string[] = Object.freeze([]);

/**
 * The head's inverted index: for every label name and value, the sorted
 * ids of the series carrying it (postings), plus each name's value
 * dictionary for matching. One writer (add, delete); reads run on the same
 * thread between writes.
 *
 * Memory per series: 4 bytes per label in a postings list (plus up to as
 * much again of block slack), 4 in the list of all series; each distinct
 * value costs its string once plus ~40 bytes (dictionary entry, UTF-8
 * bytes, offset, list metadata). Strings are interned: the index keeps the
 * first copy of each distinct name and value it sees and no other.
 *
 * @example
 * const ix = new PostingsIndex();
 * ix.add(1, ['job', 'api', 'path', '/a']);
 * ix.select([{ type: MatchType.RE, name: 'path', value: '/a|/b' }]); // Uint32Array [1]
 */
export class PostingsIndex {
  private readonly dicts = new Map<string, LabelDict>();
  private readonly lists = new PostingsLists();
  private readonly allList: number;
  private readonly reader: IndexReader;
  private lastId = -1;
  private sortedNames: string[] | undefined;
  /** Dictionaries by the FNV-1a hash of their name's UTF-8 bytes (addBytes). */
  private readonly dictsByNameHash = new Map<number, LabelDict[]>();
  /** The dictionaries of the last addBytes' labels, by place; emptied when a name leaves. */
  private recentDicts: (LabelDict | undefined)[] = [];

  constructor(private readonly algebra: PostingsAlgebra = new PostingsAlgebra()) {
    this.allList = this.lists.create();
    const dicts = this.dicts;
    this.reader = { dict: (name) => dicts.get(name), lists: this.lists, allList: this.allList };
  }

  /** Number of series in the index. */
  get seriesCount(): number {
    return this.lists.length(this.allList);
  }

  /**
   * Whether any label name or value holds a surrogate (a code point past
   * U+FFFF). Without any, JavaScript's string order is UTF-8 byte order and
   * label sets can be sorted with it.
   */
  hasSurrogates(): boolean {
    for (const [name, dict] of this.dicts) {
      if (dict.hasSurrogates || hasSurrogate(name)) return true;
    }
    return false;
  }

  /**
   * Adds series `id` (a u32 greater than every id added before) with its
   * labels flattened as [name0, value0, name1, value1, ...], names sorted
   * and unique. A label with an empty value is the same as no label, as in
   * Prometheus, and is skipped. Each string in `labels` is replaced by the
   * index's own copy, so all series share one string per distinct name and
   * value.
   */
  add(id: number, labels: string[]): void {
    this.checkNextId(id);
    if (labels.length % 2 !== 0) throw new RangeError(`labels of series ${id} are not name/value pairs`);
    this.lastId = id;
    for (let i = 0; i < labels.length; i += 2) {
      const name = labels[i]!;
      const value = labels[i + 1]!;
      if (value === '') continue;
      let dict = this.dicts.get(name);
      if (dict === undefined) {
        dict = new LabelDict(name);
        this.dicts.set(name, dict);
        this.sortedNames = undefined;
      }
      labels[i] = dict.name;
      let v = dict.find(value);
      if (v < 0) v = dict.add(value, this.lists.create());
      else labels[i + 1] = dict.value(v);
      this.lists.append(dict.list(v), id);
    }
    this.lists.append(this.allList, id);
  }

  /**
   * add() from canonical label bytes (`bytes[from, to)`: each name and
   * value UTF-8, each ended by 0xFF, names sorted and unique): names and
   * values the index holds are found by their bytes, with no string made;
   * only new ones are decoded. The same series as add() with the decoded
   * labels.
   */
  addBytes(id: number, bytes: Uint8Array, from: number, to: number): void {
    this.checkNextId(id);
    const recent = this.recentDicts;
    let at = from;
    for (let k = 0; at < to; k++) {
      // Series mostly carry the names of the one before, in the same places.
      let dict = recent[k];
      let nameEnd = -1;
      if (dict !== undefined) {
        const nb = dict.nameBytes;
        const end = at + nb.length;
        if (end < to && bytes[end] === 0xff) {
          let i = 0;
          while (i < nb.length && nb[i] === bytes[at + i]) i++;
          if (i === nb.length) nameEnd = end;
        }
      }
      let nameHash = 0;
      if (nameEnd < 0) {
        dict = undefined;
        nameHash = FNV_OFFSET;
        nameEnd = at;
        while (nameEnd < to && bytes[nameEnd] !== 0xff) nameHash = Math.imul(nameHash ^ bytes[nameEnd++]!, FNV_PRIME);
        if (nameEnd >= to) throw new RangeError(`labels of series ${id} are not name/value pairs`);
      }
      let hash = FNV_OFFSET;
      let valueEnd = nameEnd + 1;
      while (valueEnd < to && bytes[valueEnd] !== 0xff) hash = Math.imul(hash ^ bytes[valueEnd++]!, FNV_PRIME);
      if (valueEnd >= to) throw new RangeError(`labels of series ${id} are not name/value pairs`);
      // An empty value is no label (as in Prometheus): its name is not entered.
      if (valueEnd > nameEnd + 1) {
        if (dict === undefined) {
          dict = this.dictOfBytes(bytes, at, nameEnd, nameHash);
          recent[k] = dict;
        }
        const d = dict;
        let v = d.findBytes(bytes, nameEnd + 1, valueEnd, hash);
        if (v < 0) {
          const value = Buffer.from(bytes.buffer, bytes.byteOffset + nameEnd + 1, valueEnd - nameEnd - 1).toString('utf8');
          v = d.find(value);
          if (v < 0) v = d.add(value, this.lists.create());
        }
        this.lists.append(d.list(v), id);
      }
      at = valueEnd + 1;
    }
    this.lastId = id;
    this.lists.append(this.allList, id);
  }

  private checkNextId(id: number): void {
    if (!(id > this.lastId && id <= 0xffffffff && Number.isInteger(id))) {
      throw new RangeError(`series id ${id} must be a u32 greater than the last one added (${this.lastId})`);
    }
  }

  /** The dictionary of the name whose UTF-8 bytes are `bytes[from, to)`, made when new. */
  private dictOfBytes(bytes: Uint8Array, from: number, to: number, hash: number): LabelDict {
    const candidates = this.dictsByNameHash.get(hash);
    if (candidates !== undefined) {
      for (const dict of candidates) {
        const nb = dict.nameBytes;
        if (nb.length !== to - from) continue;
        let k = 0;
        while (k < nb.length && nb[k] === bytes[from + k]) k++;
        if (k === nb.length) return dict;
      }
    }
    const name = Buffer.from(bytes.buffer, bytes.byteOffset + from, to - from).toString('utf8');
    let dict = this.dicts.get(name);
    if (dict === undefined) {
      dict = new LabelDict(name);
      this.dicts.set(name, dict);
      this.sortedNames = undefined;
    }
    // Bytes that are not valid UTF-8 decode to a name whose bytes differ: such a name is looked up by string each time.
    if (dict.nameHash === hash) {
      if (candidates === undefined) this.dictsByNameHash.set(hash, [dict]);
      else candidates.push(dict);
    }
    return dict;
  }

  /**
   * Visits every label name's values with their postings, name by name,
   * values in dictionary order (a head snapshot's writer). `ids` is a view
   * valid during the call only.
   */
  forEachPostings(visit: (name: string, value: string, ids: Uint32Array) => void): void {
    for (const [name, dict] of this.dicts) {
      for (let v = 0; v < dict.size; v++) visit(name, dict.value(v), this.lists.view(dict.list(v)));
    }
  }

  /**
   * Loads postings into an index that holds no series yet (a head
   * snapshot's load): each call adds a value new to its name with its
   * sorted ids, then `loadAll` sets the list of every series. Strings
   * passed are kept as the index's own copies.
   */
  loadPostings(name: string, value: string, ids: Uint32Array): void {
    if (this.lastId >= 0) throw new Error('loadPostings on an index that holds series');
    let dict = this.dicts.get(name);
    if (dict === undefined) {
      dict = new LabelDict(name);
      this.dicts.set(name, dict);
      this.sortedNames = undefined;
    }
    if (value === '' || dict.find(value) >= 0) throw new RangeError(`label ${name}: value ${JSON.stringify(value)} loaded twice or empty`);
    const list = this.lists.create();
    this.lists.assign(list, ids);
    dict.add(value, list);
  }

  /** Ends a load (loadPostings): `ids` are every series, ascending; later adds take greater ids. */
  loadAll(ids: Uint32Array): void {
    if (this.lastId >= 0) throw new Error('loadAll on an index that holds series');
    this.lists.assign(this.allList, ids);
    this.lastId = ids.length > 0 ? ids[ids.length - 1]! : -1;
  }

  /**
   * Replaces each string of `labels` ([name, value, ...]) that the index
   * holds with the index's own copy: labels decoded afresh then share one
   * string per distinct name and value (compared by identity, used as
   * property keys without hashing again). Strings it does not hold stay.
   */
  share(labels: string[]): void {
    for (let i = 0; i < labels.length; i += 2) {
      const dict = this.dicts.get(labels[i]!);
      if (dict === undefined) continue;
      labels[i] = dict.name;
      const v = dict.find(labels[i + 1]!);
      if (v >= 0) labels[i + 1] = dict.value(v);
    }
  }

  /**
   * Removes the series `ids` (sorted ascending; ids not in the index are
   * ignored) from every postings list. Names and values left without series
   * disappear. A batch operation: one pass over the index, whatever the
   * number of ids, so call it with many ids at once.
   */
  delete(ids: Uint32Array): void {
    if (ids.length === 0) return;
    const gone = new DeletedIds(ids);
    this.lists.filter(this.allList, gone);
    for (const [name, dict] of this.dicts) {
      let emptied = 0;
      for (let v = 0; v < dict.size; v++) if (this.lists.filter(dict.list(v), gone) === 0) emptied++;
      if (emptied > 0) this.dropEmptied(name, dict);
    }
  }

  /**
   * delete() in the background: the same work, with `tick` called as it
   * goes (it returns a promise when the caller wants the event loop back).
   * Adds and reads may run in the pauses: each value's list is filtered
   * whole, and a name's emptied values are dropped in one step, so the
   * index is consistent at every pause (ids being deleted may still be
   * listed until their list's turn: readers skip ids with no series).
   */
  async deleteAsync(ids: Uint32Array, tick: (work: number) => Promise<void> | undefined): Promise<void> {
    if (ids.length === 0) return;
    const gone = new DeletedIds(ids);
    this.lists.filter(this.allList, gone);
    for (const [name, dict] of this.dicts) {
      let emptied = 0;
      for (let v = 0; v < dict.size; v++) {
        if (this.lists.filter(dict.list(v), gone) === 0) emptied++;
        if ((v & 255) === 255) {
          const pause = tick(256);
          if (pause !== undefined) await pause;
        }
      }
      await tick(dict.size & 255);
      if (emptied > 0) this.dropEmptied(name, dict);
    }
  }

  /** Lets go of the values of `name` whose lists are empty now, and of the name when none is left. */
  private dropEmptied(name: string, dict: LabelDict): void {
    const left = dict.retain((list) => {
      if (this.lists.length(list) > 0) return true;
      this.lists.drop(list);
      return false;
    });
    if (left === 0) {
      this.dicts.delete(name);
      this.sortedNames = undefined;
      this.recentDicts = [];
      const candidates = this.dictsByNameHash.get(dict.nameHash)?.filter((d) => d !== dict);
      if (candidates === undefined || candidates.length === 0) this.dictsByNameHash.delete(dict.nameHash);
      else this.dictsByNameHash.set(dict.nameHash, candidates);
    }
  }

  /** Label names with at least one series, sorted by UTF-8 bytes. A new array. */
  labelNames(): string[] {
    this.sortedNames ??= [...this.dicts.keys()].sort(compareUtf8);
    return this.sortedNames.slice();
  }

  /**
   * Values of label `name` with at least one series, sorted by UTF-8
   * bytes: the dictionary's frozen cache (LabelDict.sortedValues), the same
   * array until a value comes or goes, so that an answer can be encoded
   * once for many calls (src/grpc/label-response.ts).
   */
  labelValues(name: string): readonly string[] {
    return this.dicts.get(name)?.sortedValues() ?? NO_VALUES;
  }

  /**
   * Sorted ids of the series with label `name` = `value` (none for an
   * empty value: use `select` for matcher semantics). A view into the
   * index, valid until the next `add` or `delete`: copy it to keep it.
   */
  postings(name: string, value: string): Uint32Array {
    const dict = this.dicts.get(name);
    const v = dict?.find(value) ?? -1;
    return v < 0 ? new Uint32Array(0) : this.lists.view(dict!.list(v));
  }

  /** Number of series with label `name` = `value` (0 for an empty value): a lookup, no list is read. */
  count(name: string, value: string): number {
    const dict = this.dicts.get(name);
    const v = dict?.find(value) ?? -1;
    return v < 0 ? 0 : this.lists.length(dict!.list(v));
  }

  /** Sorted ids of every series. A view, valid until the next `add` or `delete`. */
  allPostings(): Uint32Array {
    return this.lists.view(this.allList);
  }

  /**
   * Sorted ids of the series matching all `matchers` (Prometheus 2.x
   * semantics, Go RE2 regular expressions, fully anchored; see
   * selectPostings). A new array, owned by the caller. No matchers select
   * nothing. Throws InvalidMatcherError for an invalid pattern.
   */
  select(matchers: readonly LabelMatcher[]): Uint32Array {
    return selectPostings(this.reader, matchers, this.algebra);
  }

  /** The value dictionary of a label name, for matchers and statistics. */
  dict(name: string): LabelDict | undefined {
    return this.dicts.get(name);
  }

  /** Approximate bytes held by the index's typed arrays (strings and maps not included). */
  arrayBytes(): number {
    let n = this.lists.bytes();
    for (const d of this.dicts.values()) n += d.arrayBytes();
    return n;
  }
}
