// Durable commit rate of the record store, in process: N committers each
// commit one task at a time (as concurrent HTTP POSTs would) and await the
// fsync. Then a compaction of a store with half its records dead, with
// commits going on, reporting the worst event-loop stall.
//
//   node --import tsx test/docstore/commit-rate.ts [committers=64] [seconds=3]
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openRecordStore } from '../../src/docstore/index.js';

const committers = Number(process.argv[2] ?? 64);
const seconds = Number(process.argv[3] ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'strata-commit-rate-'));

try {
  const store = await openRecordStore(dir);
  const task = (id: number) => ({ id, title: `Buy milk, eggs and bread #${id}`, completed: id % 2 === 0 });
  const until = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(Array.from({ length: committers }, async () => {
    while (performance.now() < until) {
      const id = store.lastId('tasks') + 1;
      await store.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
    }
  }));
  const elapsed = (performance.now() - start) / 1000;
  const s = store.stats();
  console.log(JSON.stringify({
    committers,
    commits: s.commits,
    seconds: +elapsed.toFixed(2),
    durableCommitsPerSecond: Math.round(s.commits / elapsed),
    fsyncs: s.fsyncs,
    commitsPerFsync: +(s.commits / s.fsyncs).toFixed(1),
  }));

  // Compaction under load: a 16 MiB segment size so the records span a few
  // segments, half of them deleted, compacted while committers keep going.
  await store.close();
  rmSync(dir, { recursive: true });
  const big = await openRecordStore(dir, { segmentBytes: 16 * 1024 * 1024, compactRatio: 2 });
  const n = 200_000;
  for (let id = 1; id <= n; id++) void big.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
  for (let id = 1; id <= n; id += 2) void big.commit([{ op: 'delete', collection: 'tasks', id }]);
  await big.commit([{ op: 'put', collection: 'users', id: 1, value: { id: 1 } }]);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let during = 0;
  let compacting = true;
  const t0 = performance.now();
  const writers = Promise.all(Array.from({ length: committers }, async () => {
    while (compacting) {
      const id = big.lastId('tasks') + 1;
      await big.commit([{ op: 'put', collection: 'tasks', id, value: task(id) }]);
      during++;
    }
  }));
  const before = big.stats();
  await big.compactNow();
  compacting = false;
  await writers;
  delay.disable();
  const after = big.stats();
  console.log(JSON.stringify({
    compaction: { records: n, segmentsBefore: before.segments, segmentsAfter: after.segments, ms: Math.round(performance.now() - t0) },
    commitsDuringCompaction: during,
    maxEventLoopStallMs: +(delay.max / 1e6).toFixed(1),
    p99EventLoopStallMs: +(delay.percentile(99) / 1e6).toFixed(1),
  }));
  await big.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
