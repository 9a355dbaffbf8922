// Helpers shared by the record store tests: temporary directories, values,
// a logger that remembers, and the store's full contents for comparison.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecordStore, type RecordStoreOptions, type SegmentRecordStore } from '../../../src/docstore/index.js';
import type { Collection, RecordValue } from '../../../src/docstore/types.js';

export const collections: readonly Collection[] = ['tasks', 'users', 'discussions', 'comments'];

/** A fresh directory under os.tmpdir(); remove it with `rmTemp`. */
export function tempDir(prefix = 'strata-records-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function rmTemp(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Segment file names in `dir`, sorted. */
export function files(dir: string): string[] {
  return readdirSync(dir).sort();
}

export function task(id: number, title = `task ${id}`, completed = false): RecordValue {
  return { id, title, completed };
}

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  obj: Record<string, unknown>;
  msg: string;
}

/** A pino-like logger that keeps what it is told. */
export function memoryLogger(): { lines: LogLine[]; info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg: string) => { lines.push({ level, obj: obj as Record<string, unknown>, msg }); };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Small segments, no background compaction unless asked: tests decide. */
export function openSmall(dir: string, options: RecordStoreOptions = {}): Promise<SegmentRecordStore> {
  return openRecordStore(dir, { segmentBytes: 4096, compactRatio: 2, ...options });
}

/** Every live record and last id, as plain data. */
export function contents(store: SegmentRecordStore): Record<string, { lastId: number; records: Array<[number, RecordValue]> }> {
  return Object.fromEntries(collections.map((c) => [c, { lastId: store.lastId(c), records: [...store.scan(c)] }]));
}
