/**
 * Whether the engine can store writes, and getting back to it on its own:
 * a full disk (ENOSPC, EDQUOT) or a failing one (EIO) never latches the
 * store into refusing writes until a restart.
 *
 * The rule the engine keeps: the head never shows an acknowledged sample
 * the WAL lacks, nor a refused one it will not keep. So:
 * - Space is held back (DiskReserve). The write that first finds the disk
 *   full gets that space and finishes (it is acknowledged); the writes
 *   after it are refused before they touch the head, with 503 and the
 *   cause, and readiness says why, until the filesystem has room for the
 *   reserve and as much again. Then the reserve is laid down again and
 *   writes resume.
 * - Should a WAL record still fail after the head took it (EIO, or a
 *   record larger than the reserve), the record is kept in memory and
 *   written as soon as the disk takes it again; the write is refused
 *   (its samples may be read meanwhile, and stay once the record is in);
 *   every later write is refused until it is in. A restart before that
 *   loses only what was refused.
 * - Full head chunks a write failed to take stay staged, readable, and are
 *   written later (ChunkSegments); their samples are in the WAL.
 * - After a failed WAL fsync (the kernel may have dropped the pages it
 *   could not write) appends go to a new segment, and the whole head is
 *   written to the chunk files and a checkpoint before writes resume.
 */
import type { ChunkSegments } from '../chunks/chunk-segments.js';
import { type DiskReserve, isNoSpace } from '../files/disk-reserve.js';
import type { Wal } from '../wal/index.js';
import type { DbLog } from './options.js';

/** How often a refusing store checks whether it can write again. */
export const HEAL_INTERVAL_MS = 1000;

/** Which engine writer met an error. */
export type WriteSite = 'wal' | 'chunks' | 'checkpoint' | 'block' | 'reserve';

/** Counts of write errors met, for metrics. */
export interface WriteErrorCount {
  site: WriteSite;
  code: string;
  count: number;
}

export class WriteHealth {
  private why: string | undefined;
  /** WAL records the head took that the WAL did not, in order: written first once it does. */
  private readonly held: { type: number; payload: Uint8Array }[] = [];
  private readonly errors = new Map<string, WriteErrorCount>();
  private timer: NodeJS.Timeout | undefined;
  private healing = false;
  /** A WAL fsync failed: the whole head must be made durable again before writes resume. */
  private walLost = false;
  /** Times writes stopped being stored, and started again. */
  refusals = 0;
  recoveries = 0;

  constructor(
    private readonly reserve: DiskReserve,
    private readonly wal: () => Wal,
    private readonly chunks: () => ChunkSegments,
    private readonly log: DbLog,
    /** After a failed WAL fsync: a new segment, and the whole head made durable (chunk files, checkpoint). */
    private readonly restoreWal: () => Promise<void>,
  ) {}

  /** Why writes are refused; undefined while they are stored. */
  get refusing(): string | undefined {
    return this.why;
  }

  /** Whether a write's WAL records are being held (the write must be refused). */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** The errors met so far, by writer and code. */
  errorCounts(): WriteErrorCount[] {
    return [...this.errors.values()].map((e) => ({ ...e }));
  }

  /**
   * Appends a WAL record of a write the head took. On a full disk the
   * reserve is given up and the append tried again; when that fails too,
   * or for another error, the record is held to be written later.
   */
  logRecord(type: number, payload: Uint8Array): void {
    if (this.held.length > 0) {
      this.held.push({ type, payload: payload.slice() });
      return;
    }
    const err = this.writeWithReserve('wal', 'the WAL', () => this.wal().append(type, payload));
    if (err === undefined) return;
    this.held.push({ type, payload: payload.slice() });
    this.refuse(`WAL write failed (${describe(err)}); writes resume once the disk takes them again`);
  }

  /** Writes the staged full head chunks; a failure leaves them staged and stops writes until they are written. */
  flushChunks(): void {
    const err = this.writeWithReserve('chunks', 'head chunk files', () => this.chunks().flush());
    if (err !== undefined) this.refuse(`${isNoSpace(err) ? 'disk full: ' : ''}head chunk files could not be written (${describe(err)}); writes resume once the disk takes them again`);
  }

  /**
   * Runs `write`; when it finds the disk full, gives up the reserve (writes
   * stop from then on) and runs it once more. Returns the error left, if any.
   */
  private writeWithReserve(site: WriteSite, what: string, write: () => void): unknown {
    try {
      write();
      return undefined;
    } catch (err) {
      this.count(site, err);
      if (!isNoSpace(err) || !this.reserve.release()) return err;
      this.refuse(`disk full: ${what} could not be written (${describe(err)}); writes resume once space is freed`);
      try {
        write();
        return undefined;
      } catch (again) {
        this.count(site, again);
        return again;
      }
    }
  }

  /** Notes a background writer's error (checkpoint, block); on a full disk, writes stop until there is room. */
  backgroundFailed(site: WriteSite, err: unknown): void {
    this.count(site, err);
    if (isNoSpace(err)) this.refuse(`disk full: a ${site === 'block' ? 'block' : 'WAL checkpoint'} could not be written (${describe(err)}); writes resume once space is freed`);
  }

  /** Refuses writes until there is room for the reserve (a start on a full disk). */
  noRoom(why: string): void {
    this.refuse(`${why}; writes resume once space is freed`);
  }

  /** Stops the checks (on close). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * One try at writing again: held records, staged chunks, then the
   * reserve (which needs room for itself and as much again). Resumes
   * writes when all three are done.
   */
  async heal(): Promise<boolean> {
    if (this.why === undefined) return true;
    if (this.healing) return false;
    this.healing = true;
    try {
      if (this.wal().failed) this.walLost = true;
      if (this.walLost) {
        try {
          await this.restoreWal();
        } catch (err) {
          this.count('checkpoint', err);
          return false;
        }
        this.walLost = false;
        // The head, held records' samples included, is in the chunk files and the checkpoint now.
        this.held.length = 0;
      }
      while (this.held.length > 0) {
        const r = this.held[0]!;
        try {
          this.wal().append(r.type, r.payload);
        } catch (err) {
          this.count('wal', err);
          return false;
        }
        this.held.shift();
      }
      if (this.chunks().backlog) {
        try {
          this.chunks().flush();
        } catch (err) {
          this.count('chunks', err);
          return false;
        }
      }
      if (!this.reserve.roomToResume()) return false;
      try {
        if (!(await this.reserve.ensure())) return false;
      } catch (err) {
        this.count('reserve', err);
        return false;
      }
      const was = this.why;
      this.why = undefined;
      this.recoveries++;
      this.stop();
      this.log.info({ was }, 'storage writable again: writes resume');
      return true;
    } finally {
      this.healing = false;
    }
  }

  private refuse(why: string): void {
    if (this.why !== undefined) return;
    this.why = why;
    this.refusals++;
    this.log.error({ reason: why }, 'storage cannot take writes: refusing them until it can');
    this.timer = setInterval(() => {
      this.heal().catch((err: unknown) => this.log.error({ err }, 'storage write check failed'));
    }, HEAL_INTERVAL_MS);
    this.timer.unref();
  }

  private count(site: WriteSite, err: unknown): void {
    const code = String((err as { code?: unknown } | undefined)?.code ?? 'other');
    const key = `${site}/${code}`;
    const e = this.errors.get(key);
    if (e === undefined) this.errors.set(key, { site, code, count: 1 });
    else e.count++;
  }
}

function describe(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : (err as Error)?.message ?? String(err);
}
