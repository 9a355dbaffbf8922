import type { BlockIndexReader } from '../blocks/index-reader.js';
import { LabelDict } from '../index/label-dict.js';
import { Lru } from '../index/lru.js';
import type { IndexReader, PostingsSource } from '../index/select.js';

/** Value dictionaries kept per block: dashboards ask the same few names again and again. */
const DICTS_PER_BLOCK = 64;
/** List number of the all-series list. */
const ALL_LIST = 0;

/**
 * A block index seen as the matcher's IndexReader: each label name's
 * values as a LabelDict (built from the postings offset table on first use
 * and cached), whose list numbers stand for postings lists in the index.
 * List numbers are stable for the block's life, so cached dictionaries
 * stay valid.
 */
export class BlockPostingsIndex {
  /** List number -> byte offset of its postings list; list 0 is every series. */
  private readonly offsets: number[] = [-1];
  private readonly baseOf = new Map<string, number>();
  private readonly dicts = new Lru<string, LabelDict | null>(DICTS_PER_BLOCK);

  constructor(private readonly index: BlockIndexReader) {}

  /** An IndexReader for one selection: postings read in it are kept until it is dropped. */
  reader(): IndexReader {
    return { dict: (name) => this.dict(name), lists: new QueryLists(this.index, this.offsets), allList: ALL_LIST };
  }

  private dict(name: string): LabelDict | undefined {
    const cached = this.dicts.get(name);
    if (cached !== undefined) return cached ?? undefined;
    const entries = this.index.postingsOffsets(name);
    if (entries === undefined || entries.values.length === 0) {
      this.dicts.set(name, null);
      return undefined;
    }
    let base = this.baseOf.get(name);
    if (base === undefined) {
      base = this.offsets.length;
      this.baseOf.set(name, base);
      for (let i = 0; i < entries.offsets.length; i++) this.offsets.push(entries.offsets[i]!);
    }
    const dict = new LabelDict(name);
    for (let i = 0; i < entries.values.length; i++) dict.add(entries.values[i]!, base + i);
    this.dicts.set(name, dict);
    return dict;
  }
}

/** Postings lists of one selection, decoded from the index once each. */
class QueryLists implements PostingsSource {
  private readonly decoded = new Map<number, Uint32Array>();

  constructor(private readonly index: BlockIndexReader, private readonly offsets: readonly number[]) {}

  view(list: number): Uint32Array {
    let ids = this.decoded.get(list);
    if (ids === undefined) {
      ids = list === ALL_LIST ? this.index.allPostings() : this.index.postingsAt(this.offsets[list]!);
      this.decoded.set(list, ids);
    }
    return ids;
  }

  length(list: number): number {
    return this.view(list).length;
  }

  copyTo(list: number, dst: Uint32Array, at: number): number {
    const src = this.view(list);
    dst.set(src, at);
    return src.length;
  }
}
