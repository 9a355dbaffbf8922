/**
 * Writing the out-of-order head's older samples into blocks, as one step
 * of head compaction, so that the write-ahead log replays exactly what the
 * head held:
 *
 * 1. begin(end): one OOO_CUT begin record, and in the same turn of the
 *    event loop the samples older than `end` move out of the out-of-order
 *    head into the cut (Head.ooo.splitBefore). Samples arriving later,
 *    older than `end` or not, go to the out-of-order head as usual (and
 *    are checked against the cut for duplicates).
 * 2. The blocks are written from the cut (src/db/head-block.ts).
 * 3. written(): one OOO_CUT end record: replay drops what the cut held.
 *    abort() instead puts the samples back (replay does the same with a
 *    begin never ended).
 * 4. hide(), once the blocks are in the block set: readers made from then
 *    on read them instead of the cut; release() once earlier reads ended.
 *
 * No checkpoint runs between begin and end (the engine waits): a
 * checkpoint holds the out-of-order head as it stands, which is right
 * before a cut begins or after it ended, never in between.
 *
 * A kill between a block's rename and the end record leaves its samples in
 * the block and, after replay, in the head too (as Prometheus after a crash
 * in its out-of-order compaction); reads and compaction merge equal samples
 * into one, and the next head compaction writes them again into a block
 * that compaction merges away.
 */
import type { Head } from './head.js';
import type { OooHead } from './ooo-head.js';
import { CUT_BEGIN, CUT_END, cutRecord } from '../record/ooo-records.js';
import { RECORD_OOO_CUT } from '../record/wal-records.js';

/** One writing of out-of-order samples into blocks. */
export interface OooCut {
  /** Samples older than this were moved into `store`. */
  readonly end: number;
  /** The samples being written; held, and checked against, until the blocks are read instead. */
  readonly store: OooHead;
  /** Their series' labels, taken at the start (a series may leave the head meanwhile). */
  readonly labels: ReadonlyMap<number, readonly string[]>;
  /** Whether readers made now read `store` (false once its blocks are in the block set). */
  visible: boolean;
}

export class OooCuts {
  private current: OooCut | undefined;
  private pending: Promise<void> | undefined;
  private settle: () => void = () => {};

  /** `log` appends a WAL record (and throws when the WAL fails). */
  constructor(private readonly head: Head, private readonly log: (type: number, payload: Uint8Array) => void) {}

  /** The cut being written, or whose blocks earlier reads may not see yet. */
  get cut(): OooCut | undefined {
    return this.current;
  }

  /** The cut's samples, while readers must read them from the head. */
  get visible(): OooHead | undefined {
    return this.current?.visible === true ? this.current.store : undefined;
  }

  /** Whether a cut is between begin and written/abort (no checkpoint may run). */
  get busy(): boolean {
    return this.pending !== undefined;
  }

  /** Resolves once no cut is between begin and written/abort. */
  async idle(): Promise<void> {
    while (this.pending !== undefined) await this.pending;
  }

  /**
   * Begins a cut of the out-of-order samples older than `end`; undefined
   * when there is none. Synchronous: the record and the move happen at
   * one point of the log. No other cut may be being written.
   */
  begin(end: number): OooCut | undefined {
    if (this.pending !== undefined) throw new Error('an out-of-order cut is being written');
    // One written but never released (a failure after its blocks were written) is forgotten.
    this.current = undefined;
    if (!(this.head.ooo.minTime < end)) return undefined;
    this.log(RECORD_OOO_CUT, cutRecord(CUT_BEGIN, end));
    const store = this.head.ooo.splitBefore(end);
    // Their samples are about to be read from blocks: merges of them are let go.
    this.head.merged.clear();
    const labels = new Map<number, readonly string[]>();
    for (const id of store.ids()) {
      const s = this.head.get(id);
      if (s !== undefined) labels.set(id, this.head.labelsOf(s));
    }
    this.current = { end, store, labels, visible: true };
    this.pending = new Promise((done) => {
      this.settle = done;
    });
    return this.current;
  }

  /** The cut's blocks are on disk: logs the end record. */
  written(): void {
    if (this.current === undefined || this.pending === undefined) return;
    this.log(RECORD_OOO_CUT, cutRecord(CUT_END, this.current.end));
    this.done();
  }

  /** The blocks are in the block set: readers made from now on read them. */
  hide(): void {
    if (this.current !== undefined) this.current.visible = false;
  }

  /** The blocks could not be written: the samples go back to the out-of-order head. */
  abort(): void {
    const cut = this.current;
    if (cut === undefined) return;
    this.current = undefined;
    this.head.ooo.absorb(cut.store, (id) => this.head.get(id) !== undefined);
    this.done();
  }

  /** Reads begun before the blocks were there have ended: the cut is forgotten. */
  release(): void {
    if (this.pending === undefined) this.current = undefined;
  }

  private done(): void {
    this.pending = undefined;
    this.settle();
  }
}
