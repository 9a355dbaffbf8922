// Child process for the kill -9 test: writes to a record store as fast as it
// can and prints every op on stdout, "I ..." before committing it and
// "A ..." once the commit resolved (acknowledged). Stdout is a pipe, which
// Node writes synchronously on Linux (a blocking write), so a printed line
// is in the pipe before the next step.
//
// Usage: node --import tsx crash-writer.ts DIR SEED
// Ops (each task has a comment with the same id, written and deleted with
// it in one commit, so the test can check atomicity):
//   C id      create task id (version 0) and comment id
//   U id v    replace task id with version v
//   D id      delete task id and comment id
import { openRecordStore } from '../../../src/docstore/index.js';
import type { WriteOp } from '../../../src/docstore/types.js';
import { rng } from '../../support/series.js';

const [dir, seedText] = process.argv.slice(2);
const next = rng(Number(seedText));
// Small segments and an eager ratio: rolls and compactions all the time.
const store = await openRecordStore(dir!, { segmentBytes: 8192, compactRatio: 0.3 });
const say = (line: string) => process.stdout.write(line + '\n');

const versions = new Map<number, number>();
for (const [id, value] of store.scan('tasks')) versions.set(id, (value as { v: number }).v);
const owned: number[][] = Array.from({ length: 8 }, () => []);
[...versions.keys()].forEach((id, i) => owned[i % owned.length]!.push(id));

const taskValue = (id: number, v: number) => ({ id, title: `task ${id}`, completed: v % 2 === 1, v });

async function worker(mine: number[]): Promise<void> {
  for (let n = 0; n < 20_000; n++) {
    const r = next();
    let line: string;
    let ops: WriteOp[];
    if (r < 0.45 || mine.length === 0) {
      const id = store.lastId('tasks') + 1;
      line = `C ${id}`;
      ops = [
        { op: 'put', collection: 'tasks', id, value: taskValue(id, 0) },
        { op: 'put', collection: 'comments', id, value: { id, discussion_id: id, body: 'c'.repeat(Math.floor(next() * 200)) } },
      ];
      versions.set(id, 0);
      mine.push(id);
    } else {
      const at = Math.floor(next() * mine.length);
      const id = mine[at]!;
      if (r < 0.8) {
        const v = versions.get(id)! + 1;
        versions.set(id, v);
        line = `U ${id} ${v}`;
        ops = [{ op: 'put', collection: 'tasks', id, value: taskValue(id, v) }];
      } else {
        mine.splice(at, 1);
        line = `D ${id}`;
        ops = [{ op: 'delete', collection: 'tasks', id }, { op: 'delete', collection: 'comments', id }];
      }
    }
    say(`I ${line}`);
    await store.commit(ops);
    say(`A ${line}`);
  }
}

await Promise.all(owned.map(worker));
say('DONE');
await store.close();
