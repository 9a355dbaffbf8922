/**
 * How far the WAL replay at start has got, for the log and for metrics
 * read while the engine is still opening (HTTP answers /metrics before
 * the engine is open). The checkpoint counts as one segment: with a
 * million series it is most of the replay.
 */
export class ReplayProgress {
  /** Files to replay at this start: the newest checkpoint (if any) and the segments after it. 0 until the WAL directory is listed. */
  segmentsTotal = 0;
  /** Of those, the files replayed so far. */
  segmentsDone = 0;
  /** Whether the replay has finished (every file read, or the open failed). */
  finished = false;
}
