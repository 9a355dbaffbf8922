// Ingests deterministic batches into a Db and prints "ack N" after each
// append returns, until killed or out of batches. Args: dataDir firstBatch lastBatch.
import { openSmallDb } from '../../support/db.js';
import { crashBatch } from './crash-batches.js';

const [dataDir, first, last] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const db = await openSmallDb(dataDir, { walSegmentsKept: 2 });
process.stdout.write('ready\n');
for (let i = first; i <= last; i++) {
  db.append(crashBatch(i));
  process.stdout.write(`ack ${i}\n`);
  if (i % 25 === 0) await new Promise((r) => setImmediate(r));
}
await db.close();
process.stdout.write('done\n');
