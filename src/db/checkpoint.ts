import { compressSync } from 'snappy';
import { Yielder } from '../background/yielder.js';
import type { ChunkSegments } from '../chunks/chunk-segments.js';
import type { Head } from '../head/head.js';
import { storeCuts } from '../head/head-chunks.js';
import type { Wal } from '../wal/index.js';
import { RECORD_SERIES_SNAPPY, SeriesRecordBuilder } from './wal-records.js';

const CHECKPOINT_SERIES_PER_RECORD = 10_000;

/**
 * Makes WAL segments before `target` unneeded and deletes them: open
 * chunks whose first sample lies in them are cut into the chunk files,
 * those are fsynced, then the live series are checkpointed. With `target`
 * a new segment (after a roll), every open chunk is cut: the head is
 * flushed. Returns the number of chunks cut.
 */
export async function checkpointBefore(head: Head, files: ChunkSegments, wal: Wal, target: number, all = false): Promise<number> {
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
  await wal.checkpoint(target, seriesRecords(head));
  return cut;
}

/** SERIES records of every live series, pausing between records. */
async function* seriesRecords(head: Head): AsyncIterableIterator<{ type: number; payload: Uint8Array }> {
  const b = new SeriesRecordBuilder();
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
