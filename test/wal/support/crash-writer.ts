// Child process of the kill -9 test. Opens the WAL in argv[2], learns from
// the replay which record comes next, prints "ready <next>", then appends
// records with consecutive sequence numbers and acknowledges each one once
// its append returned, by writing its number to the file argv[3] with a
// synchronous write (a pipe could hold acks back when full), until killed. Now and then it rolls and writes a
// checkpoint that stands for every record before the roll.
//
// Records: DATA (seq u32 first, payloadFor(seq, crashPayloadSize(seq)));
// RANGE in checkpoints (u32 from, u32 to: records [from, to) were written).
import { openSync, writeSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Wal } from '../../../src/wal/index.js';
import { CRASH_DATA as DATA, CRASH_RANGE as RANGE, crashPayloadSize, payloadFor } from './payload.js';

/** A safety net if the parent never kills: stop after this many records. */
const MAX_RECORDS_PER_RUN = 50_000;
/** Records between checkpoints: several segments' worth at 16 KiB segments. */
const CHECKPOINT_EVERY = 150;

const [dir, ackFile] = process.argv.slice(2);
if (dir === undefined || ackFile === undefined) throw new Error('usage: crash-writer.ts WAL_DIR ACK_FILE');
const acks = openSync(ackFile, 'a');

let next = 0;
const wal = await Wal.open({ dir, segmentBytes: 16 * 1024, fsyncIntervalMs: 5 }, (type, payload) => {
  const seqEnd = type === RANGE ? Buffer.from(payload).readUInt32BE(4) : Buffer.from(payload).readUInt32BE(0) + 1;
  next = Math.max(next, seqEnd);
});
process.stdout.write(`ready ${next}\n`);

const range = Buffer.alloc(8);
let checkpointing = false;
const last = next + MAX_RECORDS_PER_RUN;
while (next < last) {
  for (let i = 0; i < 10; i++, next++) {
    wal.append(DATA, payloadFor(next, crashPayloadSize(next)));
    writeSync(acks, `${next}\n`);
  }
  if (!checkpointing && next % CHECKPOINT_EVERY < 10) {
    checkpointing = true;
    const n = wal.roll();
    range.writeUInt32BE(0, 0);
    range.writeUInt32BE(next, 4);
    wal.checkpoint(n, [{ type: RANGE, payload: range }]).finally(() => {
      checkpointing = false;
    });
  }
  await yieldToLoop();
}
await wal.close();
