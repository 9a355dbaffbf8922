import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { uncompressSync } from 'snappy';
import { ChunkSegments } from '../chunks/chunk-segments.js';
import { Head } from '../head/head.js';
import { restoreChunks, storeCuts } from '../head/head-chunks.js';
import { Wal } from '../wal/index.js';
import { BlockSet } from './block-set.js';
import { OooReplay } from '../head/ooo-replay.js';
import type { DbLog, DbOptions } from './options.js';
import { QUARANTINE_DIR } from './options.js';
import { checkpointBefore } from './checkpoint.js';
import { PendingChunks } from './pending-chunks.js';
import type { ExemplarSeries, ExemplarStore } from '../exemplars/exemplar-store.js';
import { RECORD_EXEMPLARS, RECORD_HISTOGRAMS, RECORD_SAMPLES, RECORD_SERIES, RECORD_SERIES_SNAPPY, readExemplarRecord, readSeriesRecord } from '../record/wal-records.js';
import { readHistogramRecord } from '../record/histogram-record.js';
import { replayHistogram } from '../head/histogram-append.js';
import { findSnapshot } from './snapshot-load.js';
import { restoreRecorded, restoreScanned } from './snapshot-restore.js';
import { deleteSnapshotsBut } from './snapshot-write.js';

/**
 * Replays a HISTOGRAMS record (src/record/histogram-record.ts) into the head:
 * samples of series that are gone, at or before a series' newest, or older
 * than `floor` are skipped.
 */
function replayHistograms(head: Head, chunks: ChunkSegments, payload: Uint8Array, segment: number, floor: number): void {
  const store = (): void => storeCuts(head, chunks, false);
  let ok: boolean;
  try {
    ok = readHistogramRecord(payload, (id, t, body, at, end) => {
      const s = head.get(id);
      if (s !== undefined) replayHistogram(head, s, t, body, at, end, segment, floor, store);
    });
  } catch (err) {
    throw new Error(`WAL segment ${segment}: malformed histograms record: ${(err as Error).message}`);
  }
  if (!ok) throw new Error(`WAL segment ${segment}: malformed histograms record`);
  store();
}

/** What recovery opened, for the engine to run on. */
export interface Recovered {
  blocks: BlockSet;
  chunks: ChunkSegments;
  wal: Wal;
  /** The oldest WAL segment still needed. */
  walFirstSegment: number;
  /** Where the blocks end: the head holds nothing older. */
  floor: number;
}

/**
 * Opens the data directory into `head`: the blocks first (so what they hold
 * is known), then the head chunk files (chunks the blocks hold are left
 * out), then the WAL's checkpoint and segments are replayed (samples the
 * chunk files or the blocks hold are skipped). Series left without data
 * leave the head. Exemplars go back into `exemplars`, in the order they
 * were stored, for the series still known. Rules: docs/format/wal.md,
 * chunks-head.md, block.md.
 */
export async function recover(opts: DbOptions, head: Head, log: DbLog, exemplars?: ExemplarStore): Promise<Recovered> {
  const dir = opts.dataDir;
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const blocks = await BlockSet.open(join(dir, 'blocks'), log, join(dir, QUARANTINE_DIR));
  const floor = blocks.end;
  const pending = new PendingChunks();
  let inBlocks = 0;
  let maxChunkId = 0;
  const snapshot = opts.memorySnapshotOnShutdown === false ? undefined : findSnapshot(dir, log);
  // The recorded chunk lists hold the chunks from the stop's blocks end on: with the blocks ending elsewhere now, the scan.
  let recorded = snapshot?.snap.chunks;
  if (recorded !== undefined && recorded.floor !== floor) {
    log.info({ floor, snapshotFloor: recorded.floor }, 'the blocks end elsewhere than at the snapshot: scanning the head chunk files');
    recorded = undefined;
  }
  const chunks = ChunkSegments.open(
    { dir: join(dir, 'chunks_head'), segmentBytes: opts.chunkSegmentBytes, log },
    (id, ref, minT, maxT) => {
      if (id > maxChunkId) maxChunkId = id;
      if (minT < floor) {
        inBlocks++;
        return;
      }
      pending.add(id, ref, minT, maxT);
    },
    recorded?.files,
  );
  pending.group();
  if (snapshot !== undefined && !chunks.scanned) {
    // The files are those the snapshot recorded (a clean stop's, untouched since): its chunk lists stand.
    inBlocks = restoreRecorded(head, chunks, snapshot, floor, log);
    for (const f of recorded!.files) maxChunkId = Math.max(maxChunkId, f.maxId);
  } else if (snapshot !== undefined) restoreScanned(head, chunks, pending, snapshot, log);
  // The checkpoint's series records are the snapshot's series (one clean close wrote both): not replayed again.
  const skipSeriesOf = snapshot === undefined ? -1 : snapshot.snap.segment - 1;
  let skippedSeriesRecords = 0;
  let firstSegment = Infinity;
  let records = 0;
  const ooo = new OooReplay(head);
  let replayedExemplars = 0;
  let exemplarSeries: ExemplarSeries | undefined;
  const onExemplar = (id: number, ts: number, valueLo: number, valueHi: number, labelBytes: Uint8Array): void => {
    if (exemplarSeries?.id !== id) {
      const s = head.get(id);
      if (s === undefined) return; // the series left the head before the checkpoint kept it
      exemplarSeries = { key: Buffer.from(head.labelBytes(s)).toString('latin1'), labels: head.labelsOf(s), id };
    }
    const key = Buffer.from(labelBytes.buffer, labelBytes.byteOffset, labelBytes.length).toString('latin1');
    if (exemplars!.add(exemplarSeries, ts, valueLo, valueHi, key) === 'added') replayedExemplars++;
  };
  const onSeries = (id: number, bytes: Uint8Array): void => {
    const s = head.createFromBytes(id, bytes);
    if (s === undefined) return;
    const list = pending.take(id);
    if (list !== undefined) restoreChunks(head, chunks, s, list);
  };
  const wal = await Wal.open(
    { dir: join(dir, 'wal'), segmentBytes: opts.walSegmentBytes, fsyncIntervalMs: opts.walFsyncIntervalMs, log, replayProgress: opts.walReplayProgress },
    (type, payload, segment) => {
      records++;
      if (segment < firstSegment) firstSegment = segment;
      if (type === RECORD_SERIES || type === RECORD_SERIES_SNAPPY) {
        if (segment === skipSeriesOf) {
          skippedSeriesRecords++;
          return;
        }
        const plain = type === RECORD_SERIES ? payload : (uncompressSync(payload, { copyOutputData: true }) as Buffer);
        if (!readSeriesRecord(plain, onSeries)) throw new Error(`WAL segment ${segment}: malformed series record`);
      } else if (type === RECORD_SAMPLES) {
        if (!head.replay(payload, segment, floor)) throw new Error(`WAL segment ${segment}: malformed samples record`);
        storeCuts(head, chunks, false);
      } else if (type === RECORD_HISTOGRAMS) {
        replayHistograms(head, chunks, payload, segment, floor);
      } else if (OooReplay.handles(type)) {
        ooo.record(type, payload, segment);
      } else if (type === RECORD_EXEMPLARS && exemplars !== undefined) {
        if (!readExemplarRecord(payload, onExemplar)) throw new Error(`WAL segment ${segment}: malformed exemplars record`);
      }
    },
  );
  // Chunks of series no WAL record names belong to series retention dropped.
  const orphans = pending.untaken();
  // A series record whose samples never reached the WAL (a crash between the
  // two writes, or every sample rejected), or whose data blocks now hold,
  // leaves a series without data.
  ooo.finish();
  const empty: number[] = [];
  for (const s of head.all()) if (!head.hasData(s)) empty.push(s.id);
  head.drop(Uint32Array.from(empty));
  // Chunk files may hold chunks under ids no series has now (retention, or
  // a series record lost to WAL damage): a new series must not take such an
  // id, or a later start would hand it those chunks.
  head.reserveIds(maxChunkId + 1);
  if (Number.isFinite(floor)) chunks.deleteEndingBefore(floor);
  let walFirstSegment = Number.isFinite(firstSegment) ? firstSegment : wal.segment;
  if (wal.damaged.length > 0) {
    // Past WAL damage, a record may name a series whose record was lost.
    // Checkpoint the whole head past every segment read, as a clean stop
    // does: the next start reads neither the damage nor such records again.
    const target = wal.roll();
    try {
      await checkpointBefore(head, chunks, wal, target, true, exemplars);
      walFirstSegment = target;
      log.warn({ checkpoint: target, damaged: wal.damaged.length }, 'WAL checkpointed past its damage');
    } catch (err) {
      log.error({ err }, 'the WAL could not be checkpointed past its damage; the next start skips it again');
    }
  }
  // Other snapshots are stale or damaged: the next clean close writes a new one.
  await deleteSnapshotsBut(dir, snapshot?.name).catch((err: unknown) => log.warn({ err }, 'could not delete old head snapshots'));
  log.info({
    snapshot: snapshot?.name, walSeriesRecordsSkipped: skippedSeriesRecords, chunkFilesScanned: chunks.scanned,
    series: head.seriesCount, blocks: blocks.size, walRecords: records, exemplars: replayedExemplars, orphanSeriesChunks: orphans,
    chunksInBlocks: inBlocks, oooSamples: head.ooo.samples, ms: Date.now() - started,
  }, 'storage recovered');
  return { blocks, chunks, wal, walFirstSegment, floor };
}
