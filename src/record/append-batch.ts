/**
 * The append batch: the float samples of many series in one ArrayBuffer,
 * ready to move between threads and to copy into the head's module memory
 * in one go.
 *
 * Layout (little-endian): a 16-byte header [magic u32][entries u32]
 * [samples u32][label bytes u32], then the entries (32 bytes each, see
 * ENTRY in src/wasm/head.ts), the timestamps (i64), the value bits (f64)
 * and the label bytes (batch-builder.ts: canonical form). The buffer may
 * hold more bytes after the batch (a reused buffer); they are ignored.
 */
import { ENTRY } from '../wasm/layout.js';
import type { HeadWasm } from '../wasm/head.js';
import { checkLabelSet, EntryBatchBuilder, hashEntries } from './batch-builder.js';

/** "STB1": the first word of every append batch. */
export const APPEND_BATCH_MAGIC = 0x53544231;
/** Bytes of an append batch's header, before its entries. */
export const APPEND_BATCH_HEADER = 16;

/** Where the parts of an append batch lie (byte offsets into its buffer). */
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

/** Reads a batch's header; throws a RangeError if it is not a batch. */
export function viewAppendBatch(buffer: ArrayBuffer): AppendBatchView {
  if (buffer.byteLength < APPEND_BATCH_HEADER) throw new RangeError('append batch: too short');
  const [magic, entries, samples, labelBytes] = new Uint32Array(buffer, 0, 4) as unknown as [number, number, number, number];
  if (magic !== APPEND_BATCH_MAGIC) throw new RangeError('append batch: bad magic');
  const entriesAt = APPEND_BATCH_HEADER;
  const timestampsAt = entriesAt + entries * ENTRY.size;
  const valuesAt = timestampsAt + samples * 8;
  const labelsAt = valuesAt + samples * 8;
  const size = labelsAt + labelBytes;
  if (size > buffer.byteLength) throw new RangeError('append batch: sizes do not add up');
  return { entries, samples, labelBytes, entriesAt, timestampsAt, valuesAt, labelsAt, size };
}

/** Computes every entry's label hash in module memory (one call for the batch). */
function hashBatch(wasm: HeadWasm, batch: ArrayBuffer): void {
  const v = viewAppendBatch(batch);
  hashEntries(wasm, batch, v.entriesAt, v.entries, v.labelsAt, v.labelBytes);
}

const exactly = (size: number): ArrayBuffer => new ArrayBuffer(size);

/**
 * Builds append batches, series by series: from label sets and typed
 * arrays (add, addRef: the library's path, tests and benchmarks), or
 * column by column (the remote-write parser writes `ts`, `vals` and the
 * label bytes directly, then addEntry: no per-sample objects). `ts` and
 * `vals` hold two int32 words per sample, low word first (the batch is
 * little-endian); value bits are only ever copied as words or bytes, so
 * NaN payloads (the stale marker) survive.
 *
 * @example
 * const b = new AppendBatchBuilder(wasm, ['tenant_id', 'acme']);
 * b.add(['__name__', 'up', 'job', 'node'], BigInt64Array.of(1000n), Float64Array.of(1));
 * db.append(b.finish());
 */
export class AppendBatchBuilder extends EntryBatchBuilder {
  ts = new Int32Array(2 * 256);
  vals = new Int32Array(2 * 256);
  /** Samples written. */
  m = 0;

  /** `wasm` hashes the finished batch's labels; `tenant`, when given, is merged into every label set add() takes. */
  constructor(readonly wasm: HeadWasm, private readonly tenant?: readonly [string, string]) {
    // Small at first: a builder kept by a worker (request-builders.ts) grows once to its requests' size.
    super(64, 4096);
  }

  reset(): void {
    this.n = 0;
    this.m = 0;
    this.l = 0;
  }

  get capacityBytes(): number {
    return this.entries.byteLength + this.ts.byteLength + this.vals.byteLength + this.labels.byteLength;
  }

  /** Capacity in samples. */
  get sampleCapacity(): number {
    return this.ts.length >>> 1;
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

  /**
   * Adds a series by its labels, flattened [name, value, ...] in name
   * order, with the tenant label merged in.
   * @throws InvalidLabelsError when the label set is not valid
   */
  add(labels: readonly string[], timestamps: BigInt64Array, values: Float64Array): void {
    checkLabelSet(labels);
    const off = this.putLabelSet(labels, this.tenant);
    const start = this.putSamples(timestamps, values);
    this.addEntry(off, this.l - off, start, timestamps.length);
  }

  /** Adds samples for a series known by id (as Head.append returns them). */
  addRef(id: number, timestamps: BigInt64Array, values: Float64Array): void {
    const start = this.putSamples(timestamps, values);
    this.addRefEntry(id + 1, start, timestamps.length);
  }

  /**
   * The batch, label hashes filled by one WebAssembly call: in `spare`
   * when it is large enough, else in a buffer from `allocate` (default:
   * exactly the batch's size); the caller's either way. The builder is
   * empty again.
   */
  finish(spare?: ArrayBuffer, allocate: (size: number) => ArrayBuffer = exactly): ArrayBuffer {
    const entries = this.entryBytes();
    const sampleBytes = this.m * 8;
    const size = APPEND_BATCH_HEADER + entries.length + 2 * sampleBytes + this.l;
    const out = spare !== undefined && spare.byteLength >= size ? spare : allocate(size);
    const head = new Uint32Array(out, 0, 4);
    head[0] = APPEND_BATCH_MAGIC;
    head[1] = this.n;
    head[2] = this.m;
    head[3] = this.l;
    const u8 = new Uint8Array(out);
    let at = APPEND_BATCH_HEADER;
    u8.set(entries, at);
    at += entries.length;
    u8.set(new Uint8Array(this.ts.buffer, 0, sampleBytes), at);
    at += sampleBytes;
    u8.set(new Uint8Array(this.vals.buffer, 0, sampleBytes), at);
    at += sampleBytes;
    u8.set(this.labels.subarray(0, this.l), at);
    hashBatch(this.wasm, out);
    this.reset();
    return out;
  }

  /** Copies samples in as bytes (NaN payloads survive); returns the index of the first. */
  private putSamples(timestamps: BigInt64Array, values: Float64Array): number {
    const count = timestamps.length;
    if (values.length !== count) throw new RangeError(`${count} timestamps but ${values.length} values`);
    const start = this.m;
    while (this.sampleCapacity < start + count) this.growSamples();
    new Uint8Array(this.ts.buffer, start * 8, count * 8).set(new Uint8Array(timestamps.buffer, timestamps.byteOffset, count * 8));
    new Uint8Array(this.vals.buffer, start * 8, count * 8).set(new Uint8Array(values.buffer, values.byteOffset, count * 8));
    this.m = start + count;
    return start;
  }
}
