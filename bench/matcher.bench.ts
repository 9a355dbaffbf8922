// node --import tsx bench/matcher.bench.ts — the label index's matcher and
// postings set algebra: regular expressions over a label with 100k
// distinct values (fast paths and the RE2 engine), a selective equality
// matcher over 100k series, and set operations on 100k-id lists. Every
// figure goes through the public API, copies into and out of WebAssembly
// memory included, except the rows marked "kernel".
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { MatchType, PostingsAlgebra, PostingsIndex, type LabelMatcher } from '../src/index/index.js';
import { threadMatcherWasm } from '../src/wasm/matcher.js';
import { rng } from '../test/support/series.js';

const SERIES = 100_000;
const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 1000);

const next = rng(42);
const hex = () => Math.floor(next() * 2 ** 32).toString(16);
const ix = new PostingsIndex();
for (let i = 0; i < SERIES; i++) {
  ix.add(i, [
    'id', `${hex()}-${String(i % 1000).padStart(3, '0')}`,
    'instance', `host-${i % 1000}:9100`,
    'job', `job-${i % 10}`,
    'path', `/api/v${1 + (i % 3)}/items/${hex()}`,
  ]);
}

const re = (name: string, value: string): LabelMatcher => ({ type: MatchType.RE, name, value });
const eq = (name: string, value: string): LabelMatcher => ({ type: MatchType.EQ, name, value });
const queries: [string, LabelMatcher[]][] = [
  ['path=~"/api/v1/.*" (prefix)', [re('path', '/api/v1/.*')]],
  ['id=~"abc.*|.*xyz" (prefix|suffix)', [re('id', 'abc.*|.*xyz')]],
  ['id=~".*beef.*" (contains)', [re('id', '.*beef.*')]],
  ['id=~"(?i)ABC.*" (folded prefix)', [re('id', '(?i)ABC.*')]],
  ['id=~"[a-f]+-[0-9]{3}" (RE2 engine)', [re('id', '[a-f]+-[0-9]{3}')]],
  ['instance=~"host-1:9100|host-2:9100|host-3:9100" (lookups)', [re('instance', 'host-1:9100|host-2:9100|host-3:9100')]],
  ['instance="host-42:9100" (100 of 100k)', [eq('instance', 'host-42:9100')]],
  ['instance="host-42:9100", job="job-2"', [eq('instance', 'host-42:9100'), eq('job', 'job-2')]],
  ['job="job-2", path!~"/api/v1/.*"', [eq('job', 'job-2'), { type: MatchType.NRE, name: 'path', value: '/api/v1/.*' }]],
];

const algebra = new PostingsAlgebra();
const a = Uint32Array.from({ length: SERIES }, (_, i) => i * 2);
const b = Uint32Array.from({ length: SERIES }, (_, i) => i * 3);
const small = Uint32Array.from({ length: 100 }, (_, i) => i * 1999);
const singles = Array.from({ length: SERIES }, (_, i) => Uint32Array.of(i));

// Kernel: the two lists already in module memory.
const wasm = threadMatcherWasm();
const pa = wasm.alloc(SERIES * 4 + 16) >>> 0;
const pb = wasm.alloc(SERIES * 4 + 16) >>> 0;
const pout = wasm.alloc(SERIES * 4 + 16) >>> 0;
new Uint32Array(wasm.memory.buffer).set(a, pa >>> 2);
new Uint32Array(wasm.memory.buffer).set(b, pb >>> 2);

let sink = 0;
const bench = new Bench({ time: TIME_MS, warmupTime: 300 });
const counts = new Map<string, number>();
for (const [name, ms] of queries) {
  counts.set(name, ix.select(ms).length);
  bench.add(name, () => { sink += ix.select(ms).length; });
}
bench
  .add('intersect 100k ∩ 100k', () => { sink += algebra.intersect([a, b]).length; })
  .add('intersect 100k ∩ 100k (kernel)', () => { sink += wasm.intersect2(pa, SERIES, pb, SERIES, pout); })
  .add('intersect 100 ∩ 100k (galloping)', () => { sink += algebra.intersect([small, a]).length; })
  .add('union 100k ∪ 100k', () => { sink += algebra.union([a, b]).length; })
  .add('subtract 100k \\ 100k', () => { sink += algebra.subtract(a, b).length; })
  .add('union of 100k one-id lists', () => { sink += algebra.union(singles).length; });
await bench.run();

console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString().slice(0, 10)}`);
console.log(`${SERIES} series; id and path have ${SERIES} distinct values each\n`);
console.log('| operation | series selected | mean | p99 |');
console.log('|---|---|---|---|');
for (const task of bench.tasks) {
  const r = task.result;
  if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
  const ms = (x: number) => (x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(0)} µs`);
  console.log(`| ${task.name} | ${counts.get(task.name) ?? ''} | ${ms(r.latency.mean)} | ${ms(r.latency.p99)} |`);
}
if (sink === 0.5) console.log(sink);
