/**
 * The histogram batch: the native histogram samples of many series in one
 * ArrayBuffer, moved (not copied) from the parsing worker to the thread
 * that owns the head, as the append batch (append-batch.ts) moves
 * float samples. No object per sample: the head reads the timestamps to
 * apply the sample rules and decodes only the bodies it appends.
 *
 * Layout (little-endian; every part starts 8-byte aligned):
 *
 *   header (32 bytes)  magic u32 "STH1", entries u32, samples u32,
 *                      label bytes u32, body bytes u32, 12 bytes zero
 *   entries            entries x 32 bytes, the append batch's ENTRY layout:
 *                      label hash u64, ref u32 (0: by labels), label offset
 *                      u32, label length u32, first sample u32, sample
 *                      count u32, zero u32
 *   timestamps         samples x i64 (ms)
 *   body offsets       (samples + 1) x u32: sample i's body is
 *                      bodies[offsets[i], offsets[i + 1]); padded to 8 bytes
 *   bodies             body bytes (src/record/histogram-body.ts), back to back
 *   labels             label bytes: each series' canonical form, name 0xFF
 *                      value 0xFF ..., tenant label merged in
 *
 * A series' samples are in wire order; the head takes them in that order.
 */
import type { FloatHistogram, Histogram } from '../chunkenc/histogram/types.js';
import { HistogramFields, validateHistogram } from '../chunkenc/histogram/fields.js';
import { invalidLabels } from '../errors/errors.js';
import { ENTRY } from '../wasm/layout.js';
import type { HeadWasm } from '../wasm/head.js';
import { grown } from '../encoding/bytes.js';
import { checkLabelSet, EntryBatchBuilder, hashEntries } from './batch-builder.js';
import { fieldsOf, maxBodyBytes, writeBody } from './histogram-body.js';

/** "STH1": the first word of every histogram batch. */
export const HISTOGRAM_BATCH_MAGIC = 0x53544831;
/** Bytes of the header, before the entries. */
export const HISTOGRAM_BATCH_HEADER = 32;

const align8 = (n: number): number => (n + 7) & ~7;

/** Where the parts of a histogram batch lie (byte offsets into its buffer). */
export interface HistogramBatchView {
  entries: number;
  samples: number;
  labelBytes: number;
  bodyBytes: number;
  entriesAt: number;
  timestampsAt: number;
  offsetsAt: number;
  bodiesAt: number;
  labelsAt: number;
}

/** The byte size of a batch with these counts, and where each part starts. */
export function histogramBatchLayout(entries: number, samples: number, bodyBytes: number, labelBytes: number): HistogramBatchView & { size: number } {
  const entriesAt = HISTOGRAM_BATCH_HEADER;
  const timestampsAt = entriesAt + entries * ENTRY.size;
  const offsetsAt = timestampsAt + samples * 8;
  const bodiesAt = offsetsAt + align8((samples + 1) * 4);
  const labelsAt = bodiesAt + align8(bodyBytes);
  return { entries, samples, labelBytes, bodyBytes, entriesAt, timestampsAt, offsetsAt, bodiesAt, labelsAt, size: labelsAt + labelBytes };
}

/** Reads a histogram batch's header; throws a RangeError if it is not one. */
export function viewHistogramBatch(buffer: ArrayBuffer): HistogramBatchView {
  if (buffer.byteLength < HISTOGRAM_BATCH_HEADER) throw new RangeError('histogram batch: too short');
  const [magic, entries, samples, labelBytes, bodyBytes] = new Uint32Array(buffer, 0, 5) as unknown as number[];
  if (magic !== HISTOGRAM_BATCH_MAGIC) throw new RangeError('histogram batch: bad magic');
  const v = histogramBatchLayout(entries!, samples!, bodyBytes!, labelBytes!);
  // A batch may sit at the start of a larger buffer (a spare reused: src/pool/spare-buffers.ts).
  if (v.size > buffer.byteLength) throw new RangeError('histogram batch: sizes do not add up');
  return v;
}

/** A histogram the builder was given that Prometheus would refuse. */
export class InvalidHistogramError extends Error {
  readonly kind = 'invalid-histogram';
  override name = 'InvalidHistogramError';
}

/**
 * Builds histogram batches, series by series: from histogram objects
 * (add: the library's path, tests and benchmarks; each checked as
 * Prometheus checks it), or as the remote-write parser does, sample by
 * sample from validated fields (addSample), then addEntry. `ts` holds two
 * int32 words per sample (low first), `offsets[i]` where sample i's body
 * starts in `bodies` (offsets[m] is the end).
 *
 * @example
 * const b = new HistogramBatchBuilder(wasm);
 * b.add(['__name__', 'rpc_seconds'], [1000], [histogram]);
 * db.appendHistograms(b.finish());
 */
export class HistogramBatchBuilder extends EntryBatchBuilder {
  ts = new Int32Array(2 * 256);
  offsets = new Uint32Array(257);
  /** Samples written. */
  m = 0;
  bodies = new Uint8Array(16 * 1024);
  bodyView = new DataView(this.bodies.buffer);
  private fields: HistogramFields | undefined;

  /** `wasm` hashes the finished batch's labels; `tenant`, when given, is merged into every label set add() takes. */
  constructor(readonly wasm: HeadWasm, private readonly tenant?: readonly [string, string]) {
    super(64, 16 * 1024);
  }

  reset(): void {
    this.n = 0;
    this.m = 0;
    this.l = 0;
  }

  get capacityBytes(): number {
    return this.entries.byteLength + this.ts.byteLength + this.offsets.byteLength + this.bodies.byteLength + this.labels.byteLength;
  }

  /** Body bytes written. */
  get b(): number {
    return this.offsets[this.m]!;
  }

  /**
   * Adds a series' samples: times (ms) and histograms, integer ones unless
   * `float`. Checks each as Prometheus does.
   *
   * @throws InvalidLabelsError when the label set is not valid
   * @throws InvalidHistogramError naming the sample and what is wrong.
   */
  add(labels: readonly string[], times: readonly number[], histograms: readonly (Histogram | FloatHistogram)[], float = false): void {
    if (times.length !== histograms.length) throw new RangeError(`${times.length} times but ${histograms.length} histograms`);
    if (labels.length === 0) throw invalidLabels('a label set needs at least one label');
    checkLabelSet(labels);
    const fields = (this.fields ??= new HistogramFields());
    const first = this.m;
    for (let i = 0; i < times.length; i++) {
      fieldsOf(histograms[i]!, float, times[i]!, fields);
      const bad = validateHistogram(fields);
      if (bad !== undefined) {
        this.m = first;
        throw new InvalidHistogramError(`histogram ${i} at ${times[i]}: ${bad}`);
      }
      this.addSample(fields);
    }
    const off = this.putLabelSet(labels, this.tenant);
    this.addEntry(off, this.l - off, first, this.m - first);
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
      this.bodies = grown(this.bodies, at, need);
      this.bodyView = new DataView(this.bodies.buffer);
    }
    this.offsets[m + 1] = writeBody(h, this.bodies, this.bodyView, at);
    this.m = m + 1;
  }

  /** Forgets the samples from `m` on (a series refused after its histograms were read). */
  truncate(m: number): void {
    this.m = m;
  }

  /**
   * The batch, label hashes filled by one WebAssembly call: at the start
   * of `spare` when it is large enough, else in a buffer from `allocate`
   * (default: exactly the batch's size); the caller's either way. The
   * builder is empty again.
   */
  finish(spare?: ArrayBuffer, allocate?: (size: number) => ArrayBuffer): ArrayBuffer {
    const bodyBytes = this.b;
    const v = histogramBatchLayout(this.n, this.m, bodyBytes, this.l);
    const out = spare !== undefined && spare.byteLength >= v.size ? spare : allocate === undefined ? new ArrayBuffer(v.size) : allocate(v.size);
    // The whole header, its zero words too: a spare holds an older batch.
    new Uint32Array(out, 0, HISTOGRAM_BATCH_HEADER / 4).set([HISTOGRAM_BATCH_MAGIC, this.n, this.m, this.l, bodyBytes, 0, 0, 0]);
    const u8 = new Uint8Array(out);
    u8.set(this.entryBytes(), v.entriesAt);
    u8.set(new Uint8Array(this.ts.buffer, 0, this.m * 8), v.timestampsAt);
    u8.set(new Uint8Array(this.offsets.buffer, 0, (this.m + 1) * 4), v.offsetsAt);
    u8.set(this.bodies.subarray(0, bodyBytes), v.bodiesAt);
    u8.set(this.labels.subarray(0, this.l), v.labelsAt);
    hashEntries(this.wasm, out, v.entriesAt, v.entries, v.labelsAt, v.labelBytes);
    this.reset();
    return out;
  }
}
