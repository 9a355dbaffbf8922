import { APPEND_BATCH_HEADER, APPEND_BATCH_MAGIC, grownBytes, hashBatch } from './sample-batch.js';
import { ENTRY } from '../wasm/head.js';
import type { HeadWasm } from '../wasm/head.js';
import { roundedSize } from '../pool/spare-buffers.js';


const ENTRY_WORDS = ENTRY.size / 4;
const HASH = ENTRY.hash / 4;
const REF = ENTRY.ref / 4;
const LABELS_OFF = ENTRY.labelsOff / 4;
const LABELS_LEN = ENTRY.labelsLen / 4;
const START = ENTRY.start / 4;
const COUNT = ENTRY.count / 4;
const PAD = COUNT + 1;

/** Scratch above this many bytes is dropped after use rather than kept for the next request. */
const KEEP_BYTES = 16 * 1024 * 1024;

/**
 * The columns of an append batch under construction, grown by doubling and
 * reused from one request to the next on the same thread, so that a steady
 * stream of requests allocates only the finished batch. The parser writes
 * the columns directly (typed arrays, no per-sample objects):
 * `ts` and `vals` hold two int32 words per sample (low word first: the
 * batch is little-endian), `labels` the canonical label bytes.
 */
export class BatchScratch {
  entries = new Uint32Array(256 * ENTRY_WORDS);
  /** Entries written. */
  n = 0;
  ts = new Int32Array(2 * 1024);
  vals = new Int32Array(2 * 1024);
  /** Samples written. */
  m = 0;
  labels = new Uint8Array(64 * 1024);
  /** A DataView of `labels` (the same bytes), for word-wide copies. */
  labelView = new DataView(this.labels.buffer);
  /** Label bytes written. */
  l = 0;

  /** Forgets everything written (keeps the capacity). */
  reset(): void {
    this.n = 0;
    this.m = 0;
    this.l = 0;
  }

  /** Bytes held: what keeping this scratch for the next request costs. */
  get capacityBytes(): number {
    return this.entries.byteLength + this.ts.byteLength + this.vals.byteLength + this.labels.byteLength;
  }

  /** Whether to keep this scratch after a request rather than let it go. */
  get worthKeeping(): boolean {
    return this.capacityBytes <= KEEP_BYTES;
  }

  /** Makes room for one more sample (call when m reaches the capacity). */
  growSamples(): void {
    const cap = this.ts.length * 2;
    const ts = new Int32Array(cap);
    ts.set(this.ts);
    // Int32 words, never doubles: value bits (NaN payloads) are copied as they are.
    const vals = new Int32Array(cap);
    vals.set(this.vals);
    this.ts = ts;
    this.vals = vals;
  }

  /** Capacity in samples. */
  get sampleCapacity(): number {
    return this.ts.length >>> 1;
  }

  /** Makes room for `extra` more label bytes. */
  reserveLabels(extra: number): void {
    const next = grownBytes(this.labels, this.l, this.l + extra);
    if (next === this.labels) return;
    this.labels = next;
    this.labelView = new DataView(next.buffer);
  }

  /** Adds an entry for a new series: labels [off, off + len), samples [start, start + count). */
  addEntry(labelsOff: number, labelsLen: number, start: number, count: number): void {
    if ((this.n + 1) * ENTRY_WORDS > this.entries.length) {
      const next = new Uint32Array(this.entries.length * 2);
      next.set(this.entries);
      this.entries = next;
    }
    const e = this.n * ENTRY_WORDS;
    const w = this.entries;
    // Every word is written: the scratch is reused, so nothing may be left over.
    w[e + HASH] = 0; // filled by hashBatch() in finish()
    w[e + HASH + 1] = 0;
    w[e + REF] = 0; // 0: a series known by its labels, not by id
    w[e + PAD] = 0;
    w[e + LABELS_OFF] = labelsOff;
    w[e + LABELS_LEN] = labelsLen;
    w[e + START] = start;
    w[e + COUNT] = count;
    this.n++;
  }

  /** Adds an entry for a series known by ref (series id + 1): samples [start, start + count). */
  addRefEntry(ref: number, start: number, count: number): void {
    this.addEntry(0, 0, start, count);
    this.entries[(this.n - 1) * ENTRY_WORDS + REF] = ref;
  }

  /**
   * The finished batch (hashes filled by one WebAssembly call), in `spare`
   * when it is large enough, else in a new ArrayBuffer, either way the
   * caller's; bytes past the batch are slack (see viewAppendBatch). The
   * scratch is left as it was.
   */
  finish(wasm: HeadWasm, spare?: ArrayBuffer): ArrayBuffer {
    const entryBytes = this.n * ENTRY.size;
    const sampleBytes = this.m * 8;
    const size = APPEND_BATCH_HEADER + entryBytes + 2 * sampleBytes + this.l;
    const out = spare !== undefined && spare.byteLength >= size ? spare : new ArrayBuffer(roundedSize(size));
    const head = new Uint32Array(out, 0, 4);
    head[0] = APPEND_BATCH_MAGIC;
    head[1] = this.n;
    head[2] = this.m;
    head[3] = this.l;
    const u8 = new Uint8Array(out);
    let at = APPEND_BATCH_HEADER;
    u8.set(new Uint8Array(this.entries.buffer, 0, entryBytes), at);
    at += entryBytes;
    u8.set(new Uint8Array(this.ts.buffer, 0, sampleBytes), at);
    at += sampleBytes;
    u8.set(new Uint8Array(this.vals.buffer, 0, sampleBytes), at);
    at += sampleBytes;
    u8.set(this.labels.subarray(0, this.l), at);
    hashBatch(wasm, out);
    return out;
  }
}

let kept: BatchScratch | undefined;

/**
 * This thread's scratch, emptied. Parsing is synchronous, so one per thread
 * is enough; give it back with releaseScratch() when the batch is finished.
 */
export function takeScratch(): BatchScratch {
  const s = kept ?? new BatchScratch();
  kept = undefined;
  s.reset();
  return s;
}

/** Returns a scratch for the next request, unless one huge request grew it past KEEP_BYTES. */
export function releaseScratch(s: BatchScratch): void {
  if (s.worthKeeping) kept = s;
}
