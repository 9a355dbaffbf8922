import { ENTRY } from '../wasm/head.js';
import type { HeadWasm } from '../wasm/head.js';
import { grownBytes } from './sample-batch.js';
import { maxBodyBytes, writeBody } from './histogram-body.js';
import type { HistogramFields } from '../chunkenc/histogram/fields.js';
import { HISTOGRAM_BATCH_MAGIC, hashHistogramBatch, histogramBatchLayout } from './histogram-batch.js';

const ENTRY_WORDS = ENTRY.size / 4;

/** Scratch above this many bytes is dropped after use rather than kept for the next request. */
const KEEP_BYTES = 16 * 1024 * 1024;

/**
 * The columns of a histogram batch (histogram-batch-builder.ts) under construction, grown by
 * doubling and reused from one request to the next on the same thread, as
 * BatchScratch is for float samples: `ts` holds two int32 words per sample
 * (low first), `offsets[i]` where sample i's body starts in `bodies`
 * (offsets[m] is the end), `labels` the canonical label bytes.
 */
export class HistogramScratch {
  entries = new Uint32Array(64 * ENTRY_WORDS);
  n = 0;
  ts = new Int32Array(2 * 256);
  offsets = new Uint32Array(257);
  /** Samples written. */
  m = 0;
  bodies = new Uint8Array(16 * 1024);
  bodyView = new DataView(this.bodies.buffer);
  labels = new Uint8Array(16 * 1024);
  /** Label bytes written. */
  l = 0;

  /** Forgets everything written (keeps the capacity). */
  reset(): void {
    this.n = 0;
    this.m = 0;
    this.l = 0;
  }

  /** Body bytes written. */
  get b(): number {
    return this.offsets[this.m]!;
  }

  /** Whether to keep this scratch after a request rather than let it go. */
  get worthKeeping(): boolean {
    return this.entries.byteLength + this.ts.byteLength + this.offsets.byteLength + this.bodies.byteLength + this.labels.byteLength <= KEEP_BYTES;
  }

  /** Appends a validated histogram's timestamp and body. */
  addSample(h: HistogramFields): void {
    const m = this.m;
    if (2 * (m + 1) > this.ts.length) {
      const ts = new Int32Array(this.ts.length * 2);
      ts.set(this.ts);
      this.ts = ts;
      const offsets = new Uint32Array(this.ts.length / 2 + 1);
      offsets.set(this.offsets);
      this.offsets = offsets;
    }
    this.ts[2 * m] = h.tLo;
    this.ts[2 * m + 1] = h.tHi;
    const at = this.offsets[m]!;
    const need = at + maxBodyBytes(h);
    if (need > this.bodies.length) {
      this.bodies = grownBytes(this.bodies, at, need) as Uint8Array<ArrayBuffer>;
      this.bodyView = new DataView(this.bodies.buffer);
    }
    this.offsets[m + 1] = writeBody(h, this.bodies, this.bodyView, at);
    this.m = m + 1;
  }

  /** Forgets the samples from `m` on (a series refused after its histograms were read). */
  truncate(m: number): void {
    this.m = m;
  }

  /** Makes room for `extra` more label bytes. */
  reserveLabels(extra: number): void {
    this.labels = grownBytes(this.labels, this.l, this.l + extra) as Uint8Array<ArrayBuffer>;
  }

  /** Appends label bytes [off, off + len) of `src`; returns where they start. */
  putLabels(src: Uint8Array, off: number, len: number): number {
    this.reserveLabels(len);
    const at = this.l;
    this.labels.set(src.subarray(off, off + len), at);
    this.l = at + len;
    return at;
  }

  /** Adds an entry: labels [off, off + len), samples [start, start + count). */
  addEntry(labelsOff: number, labelsLen: number, start: number, count: number): void {
    if ((this.n + 1) * ENTRY_WORDS > this.entries.length) {
      const next = new Uint32Array(this.entries.length * 2);
      next.set(this.entries);
      this.entries = next;
    }
    const e = this.n * ENTRY_WORDS;
    const w = this.entries;
    // Every word is written: the scratch is reused.
    w[e + ENTRY.hash / 4] = 0;
    w[e + ENTRY.hash / 4 + 1] = 0;
    w[e + ENTRY.ref / 4] = 0;
    w[e + ENTRY.labelsOff / 4] = labelsOff;
    w[e + ENTRY.labelsLen / 4] = labelsLen;
    w[e + ENTRY.start / 4] = start;
    w[e + ENTRY.count / 4] = count;
    w[e + ENTRY.count / 4 + 1] = 0;
    this.n++;
  }

  /** The finished batch (a new ArrayBuffer the caller owns, hashes filled); the scratch is left as it was. */
  finish(wasm: HeadWasm): ArrayBuffer {
    const bodyBytes = this.b;
    const v = histogramBatchLayout(this.n, this.m, bodyBytes, this.l);
    const out = new ArrayBuffer(v.size);
    new Uint32Array(out, 0, 5).set([HISTOGRAM_BATCH_MAGIC, this.n, this.m, this.l, bodyBytes]);
    const u8 = new Uint8Array(out);
    u8.set(new Uint8Array(this.entries.buffer, 0, this.n * ENTRY.size), v.entriesAt);
    u8.set(new Uint8Array(this.ts.buffer, 0, this.m * 8), v.timestampsAt);
    u8.set(new Uint8Array(this.offsets.buffer, 0, (this.m + 1) * 4), v.offsetsAt);
    u8.set(this.bodies.subarray(0, bodyBytes), v.bodiesAt);
    u8.set(this.labels.subarray(0, this.l), v.labelsAt);
    hashHistogramBatch(wasm, out);
    return out;
  }
}

let kept: HistogramScratch | undefined;

/** This thread's histogram scratch, emptied; give it back with releaseHistogramScratch(). */
export function takeHistogramScratch(): HistogramScratch {
  const s = kept ?? new HistogramScratch();
  kept = undefined;
  s.reset();
  return s;
}

/** Keeps a scratch for the next request, unless one huge request grew it past KEEP_BYTES. */
export function releaseHistogramScratch(s: HistogramScratch): void {
  if (s.worthKeeping) kept = s;
}
