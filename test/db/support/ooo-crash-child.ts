// Ingests test/db/support/ooo-batches.ts into a Db with an out-of-order
// window and prints "ack N" after each append returns, until killed.
// Args: dataDir firstBatch lastBatch.
import { openSmallDb } from '../../support/db.js';
import { OOO_CRASH_RANGE_MS, OOO_CRASH_WINDOW_MS, oooCrashBatch } from './ooo-batches.js';

const [dataDir, first, last] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const db = await openSmallDb(dataDir, { walSegmentsKept: 2, chunkRangeMs: OOO_CRASH_RANGE_MS, outOfOrderWindowMs: OOO_CRASH_WINDOW_MS });
process.stdout.write('ready\n');
for (let i = first; i <= last; i++) {
  const r = db.append(oooCrashBatch(i));
  if (r.outOfOrder + r.conflict + r.tooOld > 0) throw new Error(`batch ${i}: ${JSON.stringify(r)}`);
  process.stdout.write(`ack ${i}\n`);
  // Give the background jobs (block cutting, compaction, WAL truncation) turns, as idle moments would.
  if (i % 5 === 0) await new Promise((r) => setTimeout(r, 3));
}
await db.close();
process.stdout.write('done\n');
