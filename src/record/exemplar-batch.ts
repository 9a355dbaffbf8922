/**
 * An exemplar batch: the exemplars of one remote-write request, as the
 * parser in a worker finds them, in one ArrayBuffer moved to the thread
 * that owns the store (no object per exemplar on the way).
 *
 * Layout (little-endian): a 16-byte header [magic u32][exemplars u32]
 * [label bytes u32][0 u32], then one 32-byte record per exemplar
 * [timestamp i64][value bits u64][series labels offset u32][length u32]
 * [exemplar labels offset u32][length u32], then the label bytes. Offsets
 * are into the label bytes. Both label sets are in canonical form (name
 * 0xFF value 0xFF ..., names ascending): the series' with the tenant label
 * merged in, exactly as its append batch entry has them; the exemplar's
 * sorted, without labels whose value is empty (as Prometheus keeps them).
 * Exemplars of one series share one copy of its labels.
 */
import { LabelBytesBuilder } from './batch-builder.js';

/** "SEX1": the first word of every exemplar batch. */
export const EXEMPLAR_BATCH_MAGIC = 0x53455831;
const HEADER = 16;
/** Bytes of one exemplar record. */
export const EXEMPLAR_RECORD = 32;
const WORDS = EXEMPLAR_RECORD / 4;

/**
 * Builds an exemplar batch: the parser writes label bytes straight into
 * `labels` (reserveLabels first) and adds one record per exemplar.
 */
export class ExemplarBatchBuilder extends LabelBytesBuilder {
  /** Eight int32 words per record: ts lo, hi, value lo, hi, series off, len, exemplar off, len. */
  records = new Int32Array(64 * WORDS);
  /** Exemplars written. */
  n = 0;

  constructor() {
    super(16 * 1024);
  }

  reset(): void {
    this.n = 0;
    this.l = 0;
  }

  get capacityBytes(): number {
    return this.records.byteLength + this.labels.byteLength;
  }

  /** Adds an exemplar: timestamp and value bits as int32 halves (low first), labels as offsets. */
  add(tsLo: number, tsHi: number, valueLo: number, valueHi: number, seriesOff: number, seriesLen: number, exOff: number, exLen: number): void {
    if ((this.n + 1) * WORDS > this.records.length) {
      const next = new Int32Array(this.records.length * 2);
      next.set(this.records);
      this.records = next;
    }
    const w = this.n * WORDS;
    const r = this.records;
    r[w] = tsLo;
    r[w + 1] = tsHi;
    r[w + 2] = valueLo;
    r[w + 3] = valueHi;
    r[w + 4] = seriesOff;
    r[w + 5] = seriesLen;
    r[w + 6] = exOff;
    r[w + 7] = exLen;
    this.n++;
  }

  /** The finished batch (a new ArrayBuffer the caller owns), undefined when there is no exemplar; the builder is empty again. */
  finish(): ArrayBuffer | undefined {
    if (this.n === 0) return undefined;
    const recordBytes = this.n * EXEMPLAR_RECORD;
    const out = new ArrayBuffer(HEADER + recordBytes + this.l);
    const head = new Uint32Array(out, 0, 4);
    head[0] = EXEMPLAR_BATCH_MAGIC;
    head[1] = this.n;
    head[2] = this.l;
    const u8 = new Uint8Array(out);
    u8.set(new Uint8Array(this.records.buffer, 0, recordBytes), HEADER);
    u8.set(this.labels.subarray(0, this.l), HEADER + recordBytes);
    this.reset();
    return out;
  }
}

/**
 * A read view of an exemplar batch. Accessors take the record index; the
 * label subarrays are views of the batch (valid while it is).
 */
export class ExemplarBatchView {
  readonly count: number;
  private readonly words: Int32Array;
  private readonly values: DataView;
  readonly labels: Uint8Array;

  /** @throws RangeError if `buffer` is not an exemplar batch */
  constructor(buffer: ArrayBuffer) {
    if (buffer.byteLength < HEADER) throw new RangeError('exemplar batch: too short');
    const [magic, count, labelBytes] = new Uint32Array(buffer, 0, 3) as unknown as [number, number, number];
    if (magic !== EXEMPLAR_BATCH_MAGIC) throw new RangeError('exemplar batch: bad magic');
    const labelsAt = HEADER + count * EXEMPLAR_RECORD;
    if (labelsAt + labelBytes !== buffer.byteLength) throw new RangeError('exemplar batch: sizes do not add up');
    this.count = count;
    this.words = new Int32Array(buffer, HEADER, count * WORDS);
    this.values = new DataView(buffer, HEADER, count * EXEMPLAR_RECORD);
    this.labels = new Uint8Array(buffer, labelsAt, labelBytes);
  }

  /** Timestamp in ms (exact within ±2^53). */
  ts(i: number): number {
    const w = i * WORDS;
    return this.words[w + 1]! * 4294967296 + (this.words[w]! >>> 0);
  }

  /** Low and high 32 bits of the value (never read through a double: NaN payloads stay). */
  valueLo(i: number): number {
    return this.words[i * WORDS + 2]!;
  }

  valueHi(i: number): number {
    return this.words[i * WORDS + 3]!;
  }

  /** The value as a number (for comparisons and answers only). */
  value(i: number): number {
    return this.values.getFloat64(i * EXEMPLAR_RECORD + 8, true);
  }

  seriesOff(i: number): number {
    return this.words[i * WORDS + 4]!;
  }

  seriesLabels(i: number): Uint8Array {
    const w = i * WORDS;
    return this.labels.subarray(this.words[w + 4]!, this.words[w + 4]! + this.words[w + 5]!);
  }

  exemplarLabels(i: number): Uint8Array {
    const w = i * WORDS;
    return this.labels.subarray(this.words[w + 6]!, this.words[w + 6]! + this.words[w + 7]!);
  }
}
