// npm run bench:codec — XOR chunk append and decode, ns per sample, for
// counter, gauge random walk and constant scrapes (15 s interval, 120-sample
// chunks): WebAssembly against the TypeScript baseline, plus bytes per sample.
// Every figure goes through the public API, copies in and out included.
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { TsXorCodec, WasmXorCodec, XorIterator } from '../src/codec/index.js';
import { scrapeSeries, type Pattern } from '../test/support/series.js';

const SERIES = 200;
const SAMPLES_PER_CHUNK = 120;
const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 1500);

const wasm = new WasmXorCodec();
const ts = new TsXorCodec();
const iterator = new XorIterator(wasm);
const outTs = new BigInt64Array(SAMPLES_PER_CHUNK);
const outVs = new Float64Array(SAMPLES_PER_CHUNK);
let sink = 0;

const rows: string[] = [];
for (const pattern of ['counter', 'gauge', 'constant'] as Pattern[]) {
  const series = Array.from({ length: SERIES }, (_, i) => scrapeSeries(pattern, SAMPLES_PER_CHUNK, i + 1));
  const chunks = series.map((s) => wasm.encode(s.timestamps, s.values));
  const bytes = chunks.reduce((n, c) => n + c.length, 0);
  const bench = new Bench({ time: TIME_MS, warmupTime: 1000 });
  bench
    .add('append wasm', () => { for (const s of series) sink += wasm.encode(s.timestamps, s.values).length; })
    .add('append ts', () => { for (const s of series) sink += ts.encode(s.timestamps, s.values).length; })
    .add('decode wasm', () => { for (const c of chunks) sink += wasm.decodeInto(c, outTs, outVs); })
    .add('decode ts', () => { for (const c of chunks) sink += ts.decode(c).values.length; })
    .add('iterate wasm', () => {
      for (const c of chunks) {
        iterator.reset(c);
        while (iterator.next()) sink += iterator.atV();
      }
    });
  await bench.run();
  const ns: Record<string, number> = {};
  for (const task of bench.tasks) {
    const r = task.result;
    if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
    ns[task.name] = (r.latency.mean * 1e6) / (SERIES * SAMPLES_PER_CHUNK);
  }
  const f = (x: number | undefined): string => x!.toFixed(1);
  rows.push(`| ${pattern} | ${f(ns['append wasm'])} | ${f(ns['append ts'])} | ${f(ns['decode wasm'])} | ${f(ns['decode ts'])} | ${(ns['decode ts']! / ns['decode wasm']!).toFixed(1)}x | ${f(ns['iterate wasm'])} | ${(bytes / (SERIES * SAMPLES_PER_CHUNK)).toFixed(2)} |`);
}

console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString().slice(0, 10)}`);
console.log(`${SERIES} chunks x ${SAMPLES_PER_CHUNK} samples per pattern; ns per sample (mean)\n`);
console.log('| pattern | append wasm | append ts | decode wasm | decode ts | decode ts/wasm | iterate wasm | bytes/sample |');
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
if (sink === 0.5) console.log(sink);
