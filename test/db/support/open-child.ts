// Prints "opening", opens the Db in argv[2] (loading its snapshot or
// replaying its WAL), prints "open", then waits to be killed.
import { openSmallDb } from '../../support/db.js';

process.stdout.write('opening\n');
await openSmallDb(process.argv[2]!);
process.stdout.write('open\n');
setInterval(() => {}, 1000);
