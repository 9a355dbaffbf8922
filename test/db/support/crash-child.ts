// Ingests deterministic batches into a Db and prints "ack N" after each
// append returns, until killed or out of batches. Args: dataDir firstBatch
// lastBatch [JSON of extra Db options].
import { openSmallDb } from '../../support/db.js';
import { crashBatch } from './crash-batches.js';

const [dataDir, first, last] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const extra = process.argv[5] === undefined ? {} : JSON.parse(process.argv[5]) as object;
const db = await openSmallDb(dataDir, { walSegmentsKept: 2, ...extra });
process.stdout.write('ready\n');
for (let i = first; i <= last; i++) {
  db.append(crashBatch(i));
  process.stdout.write(`ack ${i}\n`);
  // Give the background jobs (block cutting, compaction, WAL truncation) turns, as idle moments would.
  if (i % 5 === 0) await new Promise((r) => setTimeout(r, 3));
}
await db.close();
process.stdout.write('done\n');
