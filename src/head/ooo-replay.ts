/**
 * Replay of the out-of-order records (docs/format/wal.md): OOO_SAMPLES
 * go into the out-of-order head (a sample held already, as a checkpoint
 * and a later segment may both hold it, is kept once); an OOO_CUT begin
 * moves the samples older than its end aside as the cut did, its end
 * drops them (blocks hold them), and a begin never ended puts them back,
 * as the engine did when the cut failed or the process stopped.
 */
import type { Head } from './head.js';
import type { OooHead } from './ooo-head.js';
import { CUT_BEGIN, readCutRecord, readSamplesRecord } from '../record/ooo-records.js';
import { RECORD_OOO_CUT, RECORD_OOO_SAMPLES } from '../record/wal-records.js';

export class OooReplay {
  private cut: OooHead | undefined;
  /** Samples replayed (whether kept or held already). */
  samples = 0;

  constructor(private readonly head: Head) {}

  /** Whether records of this type are out-of-order records. */
  static handles(type: number): boolean {
    return type === RECORD_OOO_SAMPLES || type === RECORD_OOO_CUT;
  }

  /** Replays an out-of-order record; false for a record of another type. Throws on a malformed one. */
  record(type: number, payload: Uint8Array, segment: number): boolean {
    if (type === RECORD_OOO_SAMPLES) {
      const ooo = this.head.ooo;
      const ok = readSamplesRecord(payload, (id, t, lo, hi) => {
        this.samples++;
        // Series that left the head before a checkpoint kept them are gone with their samples.
        if (this.head.get(id) !== undefined) ooo.insert(id, t, lo, hi);
      });
      if (!ok) throw new Error(`WAL segment ${segment}: malformed out-of-order samples record`);
      return true;
    }
    if (type === RECORD_OOO_CUT) {
      const cut = readCutRecord(payload);
      if (cut === undefined) throw new Error(`WAL segment ${segment}: malformed out-of-order cut record`);
      if (cut.phase === CUT_BEGIN) {
        // A begin never ended (the cut failed) is undone first.
        this.putBack();
        this.cut = this.head.ooo.splitBefore(cut.end);
      } else {
        // Ended: blocks hold those samples.
        this.cut = undefined;
      }
      return true;
    }
    return false;
  }

  /** After the last record: a cut begun and never ended puts its samples back. */
  finish(): void {
    this.putBack();
  }

  private putBack(): void {
    if (this.cut === undefined) return;
    this.head.ooo.absorb(this.cut, (id) => this.head.get(id) !== undefined);
    this.cut = undefined;
  }
}
