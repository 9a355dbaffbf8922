// Shared by the WAL tests: temporary directories, a log that remembers,
// deterministic payloads, and opening a WAL while collecting its replay.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { Wal } from '../../../src/wal/index.js';
import type { WalLog, WalOptions } from '../../../src/wal/index.js';
import { payloadFor } from './payload.js';

export { payloadFor };

/** A fresh directory under the OS temp dir, removed when the test file ends. */
export function tempDir(prefix = 'strata-wal-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  o: Record<string, unknown>;
  msg: string;
}

/** A WalLog that keeps every line. */
export function memoryLog(): WalLog & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const put = (level: LogLine['level']) => (o: object, msg: string) => {
    lines.push({ level, o: o as Record<string, unknown>, msg });
  };
  return { lines, info: put('info'), warn: put('warn'), error: put('error') };
}

export interface Replayed {
  type: number;
  payload: Buffer;
  segment: number;
}

/** Opens the WAL, copying every replayed record (views die after the callback). */
export async function openCollect(opts: WalOptions): Promise<{ wal: Wal; records: Replayed[] }> {
  const records: Replayed[] = [];
  const wal = await Wal.open(opts, (type, payload, segment) => {
    records.push({ type, payload: Buffer.from(payload), segment });
  });
  return { wal, records };
}

/** Opens, collects the replay, closes. */
export async function replayAll(opts: WalOptions): Promise<Replayed[]> {
  const { wal, records } = await openCollect(opts);
  await wal.close();
  return records;
}

/** Segment file names in `dir`, ascending. */
export function segmentFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => /^\d{8}$/.test(n)).sort();
}

/** Where a record written by writeRecords() sits. */
export interface Placed {
  seq: number;
  type: number;
  payload: Buffer;
  segment: number;
  /** Path of its segment file. */
  file: string;
  /** Offset of its frame in that file. */
  offset: number;
}

const FILE_HEADER = 16;
const FRAME_HEADER = 13;

/**
 * Opens the WAL in `dir`, appends one record per entry of `sizes` (type 1 +
 * seq % 200, payloadFor(seq)), closes, and says where each record went.
 */
export async function writeRecords(dir: string, sizes: number[], segmentBytes = 4096, firstSeq = 0): Promise<Placed[]> {
  const wal = await Wal.open({ dir, segmentBytes, fsyncIntervalMs: 60_000 }, () => {});
  const placed: Placed[] = [];
  const ends = new Map<number, number>();
  sizes.forEach((size, i) => {
    const seq = firstSeq + i;
    const type = 1 + (seq % 200);
    const payload = payloadFor(seq, size);
    const segment = wal.append(type, payload);
    const offset = ends.get(segment) ?? FILE_HEADER;
    ends.set(segment, offset + FRAME_HEADER + size);
    placed.push({ seq, type, payload, segment, file: join(dir, String(segment).padStart(8, '0')), offset });
  });
  await wal.close();
  return placed;
}
