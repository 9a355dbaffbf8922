import { readFile } from 'node:fs/promises';
import { dirname, basename } from 'node:path';
import { writeFileDurably } from '../files/durable.js';
import { isUlid } from '../blocks/ulid.js';

/** Thanos' name for the shipper's record in the data directory. */
export const SHIPPER_FILENAME = 'thanos.shipper.json';
const VERSION = 1;

/** What `thanos.shipper.json` records: the blocks shipped (Thanos' shipper.Meta). */
export interface ShipperMeta {
  version: 1;
  uploaded: string[];
}

/**
 * Reads `thanos.shipper.json`; a missing file is an empty record. A file
 * that does not parse is reported to `onBroken` and treated as empty, as
 * Thanos does (it only saves bucket lookups; a block found in the bucket
 * is counted as shipped again).
 */
export async function readShipperFile(path: string, onBroken: (err: Error) => void): Promise<ShipperMeta> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: VERSION, uploaded: [] };
    onBroken(err as Error);
    return { version: VERSION, uploaded: [] };
  }
  try {
    const raw = JSON.parse(text) as { version?: unknown; uploaded?: unknown };
    if (raw.version !== VERSION) throw new Error(`unexpected meta file version ${JSON.stringify(raw.version)}`);
    const uploaded = raw.uploaded ?? [];
    if (!Array.isArray(uploaded) || !uploaded.every((u) => typeof u === 'string' && isUlid(u))) throw new Error('"uploaded" is not a list of ULIDs');
    return { version: VERSION, uploaded: uploaded as string[] };
  } catch (err) {
    onBroken(new Error(`${path}: ${(err as Error).message}`));
    return { version: VERSION, uploaded: [] };
  }
}

/** Writes `thanos.shipper.json` as Thanos does (tab-indented JSON and a newline), durably (temporary file, fsync, rename). */
export async function writeShipperFile(path: string, meta: ShipperMeta): Promise<void> {
  const body = meta.uploaded.length === 0 ? 'null' : `[\n${meta.uploaded.map((u) => `\t\t${JSON.stringify(u)}`).join(',\n')}\n\t]`;
  const text = `{\n\t"version": ${meta.version},\n\t"uploaded": ${body}\n}\n`;
  await writeFileDurably(dirname(path), basename(path), Buffer.from(text, 'utf8'));
}
