// Storage for many growable lists of u32 series ids (postings), built for a
// long tail of tiny lists: a label value unique to one series has a list of
// one id, and a typed array of its own would cost ~120 bytes of object
// headers for 4 bytes of data. Small lists live in blocks of a shared slab
// (pages of PAGE_SLOTS u32), in power-of-two size classes with one free
// list per class; a block that grows moves to the next class and its old
// block is reused by the next list of that class. A list that outgrows the
// largest class gets a Uint32Array of its own (capacity doubling), where the
// header is noise. Per list: 9 bytes of metadata plus its block.

/** Slots per slab page: 256 KiB, so one page is cheap for a small index. */
const PAGE_BITS = 16;
const PAGE_SLOTS = 1 << PAGE_BITS;
const PAGE_MASK = PAGE_SLOTS - 1;
/** Largest slab class: 2^10 ids (4 KiB); past that a list's own array header costs under 3%. */
const MAX_CLASS = 10;
/** `cls` values that are not slab classes. */
const EMPTY = 255;
const OWN = 254;
const NONE = 0xffffffff;

const EMPTY_IDS = new Uint32Array(0);

/** Many id lists, addressed by list number. Ids in a list are appended in increasing order. */
export class PostingsLists {
  /** Slab offset of the list's block (OWN: index into `own`). */
  private start = new Uint32Array(64);
  private len = new Uint32Array(64);
  /** Size class: capacity 2^cls; EMPTY or OWN otherwise. */
  private cls = new Uint8Array(64).fill(EMPTY);
  private next = 0;
  private freeLists: number[] = [];

  private pages: Uint32Array[] = [];
  /** Next unused slab slot (global offset). */
  private bump = 0;
  /** Head of each class's free block list; a free block's first slot links to the next. */
  private freeBlocks = new Uint32Array(MAX_CLASS + 1).fill(NONE);

  private own: (Uint32Array | undefined)[] = [];
  private freeOwn: number[] = [];

  /** Creates an empty list and returns its number. */
  create(): number {
    const list = this.freeLists.pop() ?? this.next++;
    if (list >= this.len.length) this.growMeta();
    this.len[list] = 0;
    this.cls[list] = EMPTY;
    return list;
  }

  /** Frees a list; its number may be handed out again by `create`. */
  drop(list: number): void {
    this.release(list);
    this.len[list] = 0;
    this.freeLists.push(list);
  }

  length(list: number): number {
    return this.len[list]!;
  }

  /** Appends `id`, which must be greater than every id in the list. */
  append(list: number, id: number): void {
    const n = this.len[list]!;
    let cls = this.cls[list]!;
    if (cls === EMPTY || (cls !== OWN && n === 1 << cls)) {
      this.move(list, cls === EMPTY ? 0 : cls + 1);
      cls = this.cls[list]!;
    }
    if (cls === OWN) {
      let arr = this.own[this.start[list]!]!;
      if (n === arr.length) {
        const bigger = new Uint32Array(n * 2);
        bigger.set(arr);
        this.own[this.start[list]!] = arr = bigger;
      }
      arr[n] = id;
    } else {
      const off = this.start[list]! + n;
      this.pages[off >>> PAGE_BITS]![off & PAGE_MASK] = id;
    }
    this.len[list] = n + 1;
  }

  /**
   * Fills the empty list `list` with `ids` (ascending) in one step, sized
   * for them: a snapshot's load, instead of one append per id.
   */
  assign(list: number, ids: Uint32Array): void {
    if (this.cls[list] !== EMPTY) throw new Error(`postings list ${list} is not empty`);
    const n = ids.length;
    if (n === 0) return;
    const cls = classFor(n);
    if (cls > MAX_CLASS) {
      const slot = this.freeOwn.pop() ?? this.own.length;
      this.own[slot] = ids.slice();
      this.start[list] = slot;
      this.cls[list] = OWN;
    } else {
      const off = this.allocBlock(cls);
      this.pages[off >>> PAGE_BITS]!.set(ids, off & PAGE_MASK);
      this.start[list] = off;
      this.cls[list] = cls;
    }
    this.len[list] = n;
  }

  /**
   * The list's ids, in order. A view into shared storage: valid until the
   * next `append`, `filter` or `drop` on this object; copy it to keep it.
   */
  view(list: number): Uint32Array {
    const n = this.len[list]!;
    const cls = this.cls[list]!;
    if (cls === EMPTY) return EMPTY_IDS;
    if (cls === OWN) return this.own[this.start[list]!]!.subarray(0, n);
    const off = this.start[list]!;
    const at = off & PAGE_MASK;
    return this.pages[off >>> PAGE_BITS]!.subarray(at, at + n);
  }

  /** Copies the list's ids into `dst` from index `at` (dst needs the room) and returns how many. */
  copyTo(list: number, dst: Uint32Array, at: number): number {
    const n = this.len[list]!;
    const cls = this.cls[list]!;
    if (n === 0) return 0;
    if (cls === OWN) {
      dst.set(this.own[this.start[list]!]!.subarray(0, n), at);
      return n;
    }
    const off = this.start[list]!;
    const page = this.pages[off >>> PAGE_BITS]!;
    const from = off & PAGE_MASK;
    // A short loop beats creating a subarray object for the few ids most lists have.
    if (n <= 16) for (let i = 0; i < n; i++) dst[at + i] = page[from + i]!;
    else dst.set(page.subarray(from, from + n), at);
    return n;
  }

  /**
   * Removes the ids in `gone` from the list and shrinks its storage when it
   * became much smaller. Returns the new length.
   */
  filter(list: number, gone: DeletedIds): number {
    const n = this.len[list]!;
    if (n === 0) return 0;
    // Most lists miss the deleted range entirely: check without making a view.
    if (this.at(list, 0) > gone.hi || this.at(list, n - 1) < gone.lo) return n;
    const ids = this.view(list);
    const k = gone.bits === undefined ? gone.filterSorted(ids) : gone.filterBits(ids);
    if (k === n) return n;
    this.len[list] = k;
    const cls = this.cls[list]!;
    if (k === 0) this.release(list);
    else if (k <= 1 << MAX_CLASS && k * 4 <= (cls === OWN ? this.own[this.start[list]!]!.length : 1 << cls)) {
      this.move(list, classFor(k));
    }
    return k;
  }

  /** The id at index `i` of the list (i < length). */
  at(list: number, i: number): number {
    if (this.cls[list] === OWN) return this.own[this.start[list]!]![i]!;
    const off = this.start[list]! + i;
    return this.pages[off >>> PAGE_BITS]![off & PAGE_MASK]!;
  }

  /** Bytes held: slab pages, own arrays and metadata. */
  bytes(): number {
    let own = 0;
    for (const a of this.own) own += a === undefined ? 0 : a.byteLength;
    return this.pages.length * PAGE_SLOTS * 4 + own + this.len.length * 9;
  }

  /** Moves the list's ids into a block of class `cls` (or its own array past MAX_CLASS). */
  private move(list: number, cls: number): void {
    const n = this.len[list]!;
    if (cls > MAX_CLASS) {
      const arr = new Uint32Array(n * 2);
      this.copyTo(list, arr, 0);
      this.release(list);
      const slot = this.freeOwn.pop() ?? this.own.length;
      this.own[slot] = arr;
      this.start[list] = slot;
      this.cls[list] = OWN;
      return;
    }
    const off = this.allocBlock(cls);
    const page = this.pages[off >>> PAGE_BITS]!;
    this.copyTo(list, page, off & PAGE_MASK);
    this.release(list);
    this.start[list] = off;
    this.cls[list] = cls;
  }

  /** Frees the list's storage (its length is left to the caller). */
  private release(list: number): void {
    const cls = this.cls[list]!;
    if (cls === OWN) {
      this.own[this.start[list]!] = undefined;
      this.freeOwn.push(this.start[list]!);
    } else if (cls !== EMPTY) {
      const off = this.start[list]!;
      this.pages[off >>> PAGE_BITS]![off & PAGE_MASK] = this.freeBlocks[cls]!;
      this.freeBlocks[cls] = off;
    }
    this.cls[list] = EMPTY;
  }

  private allocBlock(cls: number): number {
    const free = this.freeBlocks[cls]!;
    if (free !== NONE) {
      this.freeBlocks[cls] = this.pages[free >>> PAGE_BITS]![free & PAGE_MASK]!;
      return free;
    }
    const size = 1 << cls;
    // Blocks never straddle pages; the tail of a full page (under one block) is left unused.
    if ((this.bump & PAGE_MASK) + size > PAGE_SLOTS || this.bump >>> PAGE_BITS >= this.pages.length) {
      if (this.bump >>> PAGE_BITS < this.pages.length) this.bump = this.pages.length * PAGE_SLOTS;
      this.pages.push(new Uint32Array(PAGE_SLOTS));
    }
    const off = this.bump;
    this.bump += size;
    return off;
  }

  private growMeta(): void {
    const n = this.len.length * 2;
    const start = new Uint32Array(n);
    start.set(this.start);
    this.start = start;
    const len = new Uint32Array(n);
    len.set(this.len);
    this.len = len;
    const cls = new Uint8Array(n).fill(EMPTY);
    cls.set(this.cls);
    this.cls = cls;
  }
}

/** Smallest class holding `n` ids. */
function classFor(n: number): number {
  return n <= 1 ? 0 : 32 - Math.clz32(n - 1);
}

/**
 * A sorted set of ids being deleted, tested as a bitmap over its range when
 * that is small enough (a few words per id), else by binary search.
 */
export class DeletedIds {
  readonly lo: number;
  readonly hi: number;
  readonly bits: Uint32Array | undefined;

  constructor(readonly ids: Uint32Array) {
    this.lo = ids[0] ?? 0;
    this.hi = ids[ids.length - 1] ?? -1;
    const words = Math.floor((this.hi - this.lo) / 32) + 1;
    if (ids.length > 0 && words <= Math.max(1024, ids.length * 4)) {
      const bits = new Uint32Array(words);
      for (let i = 0; i < ids.length; i++) {
        const d = ids[i]! - this.lo;
        bits[d >>> 5] = bits[d >>> 5]! | (1 << (d & 31));
      }
      this.bits = bits;
    }
  }

  /** Compacts `ids` in place to those not deleted; returns how many remain. */
  filterBits(ids: Uint32Array): number {
    const bits = this.bits!;
    const lo = this.lo;
    const hi = this.hi;
    let k = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const d = id - lo;
      if (d >= 0 && id <= hi && (bits[d >>> 5]! & (1 << (d & 31))) !== 0) continue;
      ids[k++] = id;
    }
    return k;
  }

  /** As filterBits, for sparse deletions: a binary search per id. */
  filterSorted(ids: Uint32Array): number {
    const gone = this.ids;
    let k = 0;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      let a = 0;
      let b = gone.length;
      while (a < b) {
        const m = (a + b) >>> 1;
        if (gone[m]! < id) a = m + 1;
        else b = m;
      }
      if (a < gone.length && gone[a] === id) continue;
      ids[k++] = id;
    }
    return k;
  }
}
