import { ENTRY } from '../wasm/head.js';
import type { HeadWasm } from '../wasm/head.js';
import { invalidLabels } from '../errors/write-errors.js';

/**
 * An append batch: the samples of many series in one ArrayBuffer, ready to
 * move between threads and to copy into the head's module memory in one go.
 *
 * Layout (little-endian): a 16-byte header [magic u32][entries u32]
 * [samples u32][label bytes u32], then the entries (32 bytes each, see
 * ENTRY), the timestamps (i64), the value bits (f64) and the label bytes.
 * A series' label bytes are its canonical form: name 0xFF value 0xFF ...
 * in name order (0xFF never occurs in UTF-8, so the form is unambiguous).
 * The buffer may hold more bytes after the batch (a reused buffer); they
 * are ignored.
 */
export interface AppendBatchView {
  entries: number;
  samples: number;
  labelBytes: number;
  entriesAt: number;
  timestampsAt: number;
  valuesAt: number;
  labelsAt: number;
  /** Bytes of the batch; the buffer may be longer (slack, ignored). */
  size: number;
}

/** "STB1": the first word of every append batch. */
export const APPEND_BATCH_MAGIC = 0x53544231;
/** Bytes of an append batch's header, before its entries. */
export const APPEND_BATCH_HEADER = 16;
const MAGIC = APPEND_BATCH_MAGIC;
const HEADER = APPEND_BATCH_HEADER;

/** `buf` when it holds `need` bytes, else a copy of its first `used` bytes in a buffer at least twice as large. */
export function grownBytes<T extends Uint8Array>(buf: T, used: number, need: number): T | Uint8Array<ArrayBuffer> {
  if (need <= buf.length) return buf;
  let cap = Math.max(buf.length * 2, 64);
  while (cap < need) cap *= 2;
  const next = new Uint8Array(cap);
  next.set(buf.subarray(0, used));
  return next;
}

/** Reads a batch's header; throws a RangeError if it is not a batch. */
export function viewAppendBatch(buffer: ArrayBuffer): AppendBatchView {
  if (buffer.byteLength < HEADER) throw new RangeError('append batch: too short');
  const [magic, entries, samples, labelBytes] = new Uint32Array(buffer, 0, 4) as unknown as [number, number, number, number];
  if (magic !== MAGIC) throw new RangeError('append batch: bad magic');
  const entriesAt = HEADER;
  const timestampsAt = entriesAt + entries * ENTRY.size;
  const valuesAt = timestampsAt + samples * 8;
  const labelsAt = valuesAt + samples * 8;
  const size = labelsAt + labelBytes;
  if (size > buffer.byteLength) throw new RangeError('append batch: sizes do not add up');
  return { entries, samples, labelBytes, entriesAt, timestampsAt, valuesAt, labelsAt, size };
}

const encoder = new TextEncoder();

/**
 * Builds an append batch series by series. Label sets must be valid:
 * names and values non-empty, names unique and in ascending order; a
 * tenant label, when given, is merged in and wins over one of the same name.
 *
 * @example
 * const b = new AppendBatchBuilder(wasm);
 * b.add(['__name__', 'up', 'job', 'node'], BigInt64Array.of(1000n), Float64Array.of(1));
 * db.append(b.finish());
 */
export class AppendBatchBuilder {
  private entries = new DataView(new ArrayBuffer(64 * ENTRY.size));
  private ts = new BigInt64Array(256);
  private vals = new Float64Array(256);
  private labels = new Uint8Array(4096);
  private n = 0;
  private m = 0;
  private l = 0;

  constructor(private readonly wasm: HeadWasm, private readonly tenant?: readonly [string, string]) {}

  get seriesCount(): number {
    return this.n;
  }

  get sampleCount(): number {
    return this.m;
  }

  /** Adds a series by its labels, flattened [name, value, ...] in name order. */
  add(labels: readonly string[], timestamps: BigInt64Array, values: Float64Array): void {
    checkLabels(labels);
    const off = this.l;
    const t = this.tenant;
    let tenantDone = t === undefined;
    for (let i = 0; i < labels.length; i += 2) {
      const name = labels[i]!;
      if (!tenantDone && name >= t![0]) {
        this.putLabel(t![0], t![1]);
        tenantDone = true;
        if (name === t![0]) continue;
      }
      this.putLabel(name, labels[i + 1]!);
    }
    if (!tenantDone) this.putLabel(t![0], t![1]);
    this.putEntry(0, off, this.l - off, timestamps, values);
  }

  /** Adds samples for a series known by id (as Head.append returns them). */
  addRef(id: number, timestamps: BigInt64Array, values: Float64Array): void {
    this.putEntry(id + 1, 0, 0, timestamps, values);
  }

  /** The batch, with label hashes computed; the builder is empty again. */
  finish(): ArrayBuffer {
    const entryBytes = this.n * ENTRY.size;
    const size = HEADER + entryBytes + this.m * 16 + this.l;
    const out = new ArrayBuffer(size);
    new Uint32Array(out, 0, 4).set([MAGIC, this.n, this.m, this.l]);
    const u8 = new Uint8Array(out);
    u8.set(new Uint8Array(this.entries.buffer, 0, entryBytes), HEADER);
    u8.set(new Uint8Array(this.ts.buffer, 0, this.m * 8), HEADER + entryBytes);
    u8.set(new Uint8Array(this.vals.buffer, 0, this.m * 8), HEADER + entryBytes + this.m * 8);
    u8.set(this.labels.subarray(0, this.l), HEADER + entryBytes + this.m * 16);
    hashBatch(this.wasm, out);
    this.n = 0;
    this.m = 0;
    this.l = 0;
    return out;
  }

  private putLabel(name: string, value: string): void {
    this.reserveLabels((name.length + value.length) * 3 + 2);
    this.l += encoder.encodeInto(name, this.labels.subarray(this.l)).written;
    this.labels[this.l++] = 0xff;
    this.l += encoder.encodeInto(value, this.labels.subarray(this.l)).written;
    this.labels[this.l++] = 0xff;
  }

  private putEntry(ref: number, labelsOff: number, labelsLen: number, timestamps: BigInt64Array, values: Float64Array): void {
    const count = timestamps.length;
    if (values.length !== count) throw new RangeError(`${count} timestamps but ${values.length} values`);
    if ((this.n + 1) * ENTRY.size > this.entries.byteLength) {
      const next = new DataView(new ArrayBuffer(this.entries.byteLength * 2));
      new Uint8Array(next.buffer).set(new Uint8Array(this.entries.buffer));
      this.entries = next;
    }
    const e = this.n * ENTRY.size;
    const d = this.entries;
    d.setBigUint64(e + ENTRY.hash, 0n, true);
    d.setUint32(e + ENTRY.ref, ref, true);
    d.setUint32(e + ENTRY.labelsOff, labelsOff, true);
    d.setUint32(e + ENTRY.labelsLen, labelsLen, true);
    d.setUint32(e + ENTRY.start, this.m, true);
    d.setUint32(e + ENTRY.count, count, true);
    d.setUint32(e + 28, 0, true);
    this.n++;
    if (this.m + count > this.ts.length) {
      let cap = this.ts.length * 2;
      while (cap < this.m + count) cap *= 2;
      const ts = new BigInt64Array(cap);
      ts.set(this.ts.subarray(0, this.m));
      const vals = new Float64Array(cap);
      // Copy value bits as bytes: NaN payloads (the stale marker) must survive.
      new Uint8Array(vals.buffer).set(new Uint8Array(this.vals.buffer, 0, this.m * 8));
      this.ts = ts;
      this.vals = vals;
    }
    this.ts.set(timestamps, this.m);
    new Uint8Array(this.vals.buffer, this.m * 8, count * 8).set(new Uint8Array(values.buffer, values.byteOffset, count * 8));
    this.m += count;
  }

  private reserveLabels(extra: number): void {
    this.labels = grownBytes(this.labels, this.l, this.l + extra) as Uint8Array<ArrayBuffer>;
  }
}

/** Computes every entry's label hash in module memory (one call for the batch). */
export function hashBatch(wasm: HeadWasm, batch: ArrayBuffer): void {
  const v = viewAppendBatch(batch);
  hashEntries(wasm, batch, v.entriesAt, v.entries, v.labelsAt, v.labelBytes);
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

function checkLabels(labels: readonly string[]): void {
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
