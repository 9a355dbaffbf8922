/**
 * What the three batch builders (append-batch.ts, histogram-batch.ts,
 * exemplar-batch.ts) share: canonical label bytes and, for the two batches
 * of series, the entry table, each grown by doubling and reused from one
 * request to the next on a thread, so that a steady stream of requests
 * allocates only the finished batches.
 *
 * Canonical label bytes: name 0xFF value 0xFF ... in name order (0xFF
 * never occurs in UTF-8, so the form is unambiguous).
 */
import { grown } from '../encoding/bytes.js';
import { invalidLabels } from '../errors/errors.js';
import { ENTRY } from '../wasm/layout.js';
import type { HeadWasm } from '../wasm/head.js';

const ENTRY_WORDS = ENTRY.size / 4;
const HASH = ENTRY.hash / 4;
const REF = ENTRY.ref / 4;
const LABELS_OFF = ENTRY.labelsOff / 4;
const LABELS_LEN = ENTRY.labelsLen / 4;
const START = ENTRY.start / 4;
const COUNT = ENTRY.count / 4;
const SLOT = ENTRY.slot / 4;

const encoder = new TextEncoder();

/**
 * Checks a label set given as [name, value, ...]: names and values not
 * empty, names unique and in ascending order.
 * @throws InvalidLabelsError naming what is wrong
 */
export function checkLabelSet(labels: readonly string[]): void {
  if (labels.length % 2 !== 0) throw invalidLabels('a label set needs a value for every name');
  for (let i = 0; i < labels.length; i += 2) {
    const name = labels[i]!;
    if (name === '') throw invalidLabels('empty label name');
    if (labels[i + 1] === '') throw invalidLabels(`empty value for label ${JSON.stringify(name)}`);
    if (i > 0) {
      const prev = labels[i - 2]!;
      if (prev === name) throw invalidLabels(`duplicate label name ${JSON.stringify(name)}`);
      if (prev > name) throw invalidLabels(`label names not sorted: ${JSON.stringify(prev)} before ${JSON.stringify(name)}`);
    }
  }
}

/**
 * Label bytes under construction. The parser writes `labels` directly
 * (reserveLabels first; `labelView` is the same bytes, for word-wide
 * copies) and advances `l`.
 */
export abstract class LabelBytesBuilder {
  labels: Uint8Array<ArrayBuffer>;
  labelView: DataView;
  /** Label bytes written. */
  l = 0;

  constructor(labelBytes: number) {
    this.labels = new Uint8Array(labelBytes);
    this.labelView = new DataView(this.labels.buffer);
  }

  /** Bytes held: what keeping this builder for the next request costs. */
  abstract get capacityBytes(): number;

  /** Forgets everything written (keeps the capacity). */
  abstract reset(): void;

  /** Makes room for `extra` more label bytes. */
  reserveLabels(extra: number): void {
    const next = grown(this.labels, this.l, this.l + extra);
    if (next === this.labels) return;
    this.labels = next;
    this.labelView = new DataView(next.buffer);
  }

  /** Appends label bytes [off, off + len) of `src`; returns where they start. */
  putLabels(src: Uint8Array, off: number, len: number): number {
    this.reserveLabels(len);
    const at = this.l;
    this.labels.set(src.subarray(off, off + len), at);
    this.l = at + len;
    return at;
  }

  /**
   * Appends a label set given as [name, value, ...] in name order (checked
   * by the caller), with `tenant` merged in: it wins over a label of the
   * same name. Returns where the bytes start.
   */
  putLabelSet(labels: readonly string[], tenant: readonly [string, string] | undefined): number {
    const off = this.l;
    let tenantDone = tenant === undefined;
    for (let i = 0; i < labels.length; i += 2) {
      const name = labels[i]!;
      if (!tenantDone && name >= tenant![0]) {
        this.putLabel(tenant![0], tenant![1]);
        tenantDone = true;
        if (name === tenant![0]) continue;
      }
      this.putLabel(name, labels[i + 1]!);
    }
    if (!tenantDone) this.putLabel(tenant![0], tenant![1]);
    return off;
  }

  private putLabel(name: string, value: string): void {
    this.reserveLabels((name.length + value.length) * 3 + 2);
    this.l += encoder.encodeInto(name, this.labels.subarray(this.l)).written;
    this.labels[this.l++] = 0xff;
    this.l += encoder.encodeInto(value, this.labels.subarray(this.l)).written;
    this.labels[this.l++] = 0xff;
  }
}

/**
 * The entry table of a batch of series (ENTRY layout, src/wasm/head.ts):
 * one 32-byte entry per series' run of samples, by labels or by ref.
 */
export abstract class EntryBatchBuilder extends LabelBytesBuilder {
  entries: Uint32Array<ArrayBuffer>;
  /** Entries written. */
  n = 0;

  constructor(entries: number, labelBytes: number) {
    super(labelBytes);
    this.entries = new Uint32Array(entries * ENTRY_WORDS);
  }

  /** Adds an entry for a series given by its labels [off, off + len), samples [start, start + count). */
  addEntry(labelsOff: number, labelsLen: number, start: number, count: number): void {
    if ((this.n + 1) * ENTRY_WORDS > this.entries.length) {
      const next = new Uint32Array(this.entries.length * 2);
      next.set(this.entries);
      this.entries = next;
    }
    const e = this.n * ENTRY_WORDS;
    const w = this.entries;
    // Every word is written: the builder is reused, so nothing may be left over.
    w[e + HASH] = 0; // filled by hashEntries() when the batch is finished
    w[e + HASH + 1] = 0;
    w[e + REF] = 0; // 0: a series known by its labels, not by id
    w[e + LABELS_OFF] = labelsOff;
    w[e + LABELS_LEN] = labelsLen;
    w[e + START] = start;
    w[e + COUNT] = count;
    w[e + SLOT] = 0; // the head's scratch word
    this.n++;
  }

  /** Adds an entry for a series known by ref (series id + 1): samples [start, start + count). */
  addRefEntry(ref: number, start: number, count: number): void {
    this.addEntry(0, 0, start, count);
    this.entries[(this.n - 1) * ENTRY_WORDS + REF] = ref;
  }

  /** The entry table's bytes written so far (a view). */
  protected entryBytes(): Uint8Array {
    return new Uint8Array(this.entries.buffer, 0, this.n * ENTRY.size);
  }
}

/**
 * Fills the hash of `n` entries (ENTRY layout) at `entriesAt` of `batch`,
 * whose label offsets are relative to `labelsAt`, in one WebAssembly call
 * (any batch laid out with these entries: append and histogram batches).
 */
export function hashEntries(wasm: HeadWasm, batch: ArrayBuffer, entriesAt: number, n: number, labelsAt: number, labelBytes: number): void {
  if (n === 0) return;
  const entryBytes = n * ENTRY.size;
  const ptr = wasm.alloc(entryBytes + labelBytes + 8);
  const mem = new Uint8Array(wasm.memory.buffer);
  mem.set(new Uint8Array(batch, entriesAt, entryBytes), ptr);
  mem.set(new Uint8Array(batch, labelsAt, labelBytes), ptr + entryBytes);
  wasm.hashEntries(ptr, n, ptr + entryBytes, ENTRY.size, ENTRY.hash, ENTRY.labelsOff, ENTRY.labelsLen);
  new Uint8Array(batch, entriesAt, entryBytes).set(new Uint8Array(wasm.memory.buffer, ptr, entryBytes));
  wasm.free(ptr);
}
