import { compressSync } from 'snappy';
import { Yielder } from '../background/yielder.js';
import type { ChunkSegments } from '../chunks/chunk-segments.js';
import type { Head } from '../head/head.js';
import { storeCuts } from '../head/head-chunks.js';
import type { Wal } from '../wal/index.js';
import { SamplesRecordWriter } from '../record/ooo-records.js';
import type { ExemplarStore } from '../exemplars/exemplar-store.js';
import { ExemplarRecordWriter, RECORD_EXEMPLARS, RECORD_OOO_SAMPLES, RECORD_SERIES_SNAPPY, SeriesRecordWriter } from '../record/wal-records.js';

const CHECKPOINT_SERIES_PER_RECORD = 10_000;
/** About 1 MB records (11 to 20 bytes a sample). */
const CHECKPOINT_OOO_SAMPLES_PER_RECORD = 65_536;
const CHECKPOINT_EXEMPLARS_PER_RECORD = 10_000;

/**
 * Makes WAL segments before `target` unneeded and deletes them: open
 * chunks whose first sample lies in them are cut into the chunk files,
 * those are fsynced, then the live series are checkpointed. With `target`
 * a new segment (after a roll), every open chunk is cut: the head is
 * flushed. The out-of-order head follows the series, whole (it holds no
 * more than the out-of-order window), then the exemplars held for live
 * series, oldest first (as Prometheus' checkpoints keep them). Returns the number of
 * chunks cut.
 */
export async function checkpointBefore(
  head: Head, files: ChunkSegments, wal: Wal, target: number, all = false, exemplars?: ExemplarStore,
): Promise<number> {
  let cut = 0;
  const y = new Yielder();
  for (const s of head.all()) {
    if ((all || head.openChunkWalSeg(s) < target) && head.cutOpen(s)) cut++;
    const pause = y.tick();
    if (pause !== undefined) {
      storeCuts(head, files);
      await pause;
    }
  }
  storeCuts(head, files);
  await files.sync();
  await wal.checkpoint(target, checkpointRecords(head, exemplars));
  return cut;
}

async function* checkpointRecords(head: Head, exemplars: ExemplarStore | undefined): AsyncIterableIterator<{ type: number; payload: Uint8Array }> {
  yield* seriesRecords(head);
  yield* oooRecords(head);
  if (exemplars !== undefined) yield* exemplarRecords(head, exemplars);
}

/**
 * EXEMPLARS records of the exemplars held for series still in the head,
 * oldest appended first. Taken at once (the store is bounded: 100,000
 * exemplars are a few MB), so appends during the checkpoint cannot change
 * what is written; those are in segments from `target` on anyway.
 */
function* exemplarRecords(head: Head, exemplars: ExemplarStore): IterableIterator<{ type: number; payload: Uint8Array }> {
  const b = new ExemplarRecordWriter();
  let n = 0;
  const out: Uint8Array[] = [];
  exemplars.forEach((series, e) => {
    if (head.get(series.id) === undefined) return; // the series has left the head (ids are never taken again)
    b.add(series.id, e.ts, e.valueLo, e.valueHi, Buffer.from(e.labelsKey, 'latin1'));
    if (++n === CHECKPOINT_EXEMPLARS_PER_RECORD) {
      out.push(Buffer.from(b.payload()));
      b.reset();
      n = 0;
    }
  });
  if (!b.empty) out.push(b.payload());
  for (const payload of out) yield { type: RECORD_EXEMPLARS, payload };
}

/**
 * OOO_SAMPLES records of the whole out-of-order head (ooo-records.ts),
 * pausing between records. Samples added meanwhile are in segments from
 * the checkpoint's number on too; replay keeps a sample held twice once.
 */
async function* oooRecords(head: Head): AsyncIterableIterator<{ type: number; payload: Uint8Array }> {
  const w = new SamplesRecordWriter();
  for (const id of head.ooo.ids()) {
    // A view, read before the pause below: no copy.
    const cols = head.ooo.view(id);
    for (let i = 0; i < cols.n; i++) w.add(id, cols.t[i]!, cols.v[2 * i]!, cols.v[2 * i + 1]!);
    if (w.samples >= CHECKPOINT_OOO_SAMPLES_PER_RECORD) {
      yield { type: RECORD_OOO_SAMPLES, payload: Buffer.from(w.payload()) };
      w.reset();
      await new Promise((done) => setImmediate(done));
    }
  }
  if (!w.empty) yield { type: RECORD_OOO_SAMPLES, payload: Buffer.from(w.payload()) };
}

/** SERIES records of every live series, pausing between records. */
async function* seriesRecords(head: Head): AsyncIterableIterator<{ type: number; payload: Uint8Array }> {
  const b = new SeriesRecordWriter();
  let n = 0;
  for (const s of head.all()) {
    b.add(s.id, head.labelBytes(s));
    if (++n === CHECKPOINT_SERIES_PER_RECORD) {
      yield { type: RECORD_SERIES_SNAPPY, payload: compressSync(b.payload(), { copyOutputData: true }) };
      b.reset();
      n = 0;
      await new Promise((done) => setImmediate(done));
    }
  }
  if (!b.empty) yield { type: RECORD_SERIES_SNAPPY, payload: compressSync(b.payload(), { copyOutputData: true }) };
}
