// npm run bench:codec — XOR chunk append and decode, ns per sample, for
// counter, gauge random walk and constant scrapes (15 s interval, 120-sample
// chunks): WebAssembly against the TypeScript baseline, plus bytes per sample.
// Then native histogram chunks (integer and float, 20 and 160 buckets):
// encode, append one sample at a time through the chunker, and decode, in
// ns per sample and per bucket. Every figure goes through the public API,
// copies in and out (and histogram objects at the edge) included.
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import {
  HistogramChunker, TsXorCodec, WasmXorCodec, XorIterator, tsHistogramCodecs, wasmHistogramCodecs, type HistogramChunkCodec,
} from '../src/chunkenc/index.js';
import type { FloatHistogram, Histogram } from '../src/chunkenc/histogram/types.js';
import { rng, scrapeSeries, type Pattern } from '../test/support/series.js';
import { scrapeHistograms, toFloat } from '../test/chunkenc/histogram-support.js';

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

// Native histograms: HISTOGRAM_CHUNKS chunks of 120 scrapes each.
const HISTOGRAM_CHUNKS = 20;
const histRows: string[] = [];
const wasmHist = wasmHistogramCodecs();
for (const float of [false, true]) {
  for (const buckets of [20, 160]) {
    const next = rng(buckets);
    const series = Array.from({ length: HISTOGRAM_CHUNKS }, () => {
      const s = scrapeHistograms(SAMPLES_PER_CHUNK, buckets, next);
      return { timestamps: s.timestamps, histograms: float ? s.histograms.map(toFloat) : s.histograms };
    });
    type AnyCodec = HistogramChunkCodec<Histogram | FloatHistogram>;
    const wasmCodec = (float ? wasmHist.floatHistogram : wasmHist.histogram) as AnyCodec;
    const tsCodec = (float ? tsHistogramCodecs.floatHistogram : tsHistogramCodecs.histogram) as AnyCodec;
    const chunks = series.map((x) => wasmCodec.encode(x.timestamps, x.histograms));
    const bytes = chunks.reduce((n, c) => n + c.length, 0);
    const times = series.map((x) => Array.from(x.timestamps, Number));
    const bench = new Bench({ time: TIME_MS, warmupTime: 500 });
    bench
      .add('encode wasm', () => { for (const x of series) sink += wasmCodec.encode(x.timestamps, x.histograms).length; })
      .add('encode ts', () => { for (const x of series) sink += tsCodec.encode(x.timestamps, x.histograms).length; })
      .add('append wasm', () => {
        series.forEach((x, k) => {
          const chunker = new HistogramChunker();
          const ts = times[k]!;
          for (let i = 0; i < ts.length; i++) {
            const r = float ? chunker.appendFloatHistogram(ts[i]!, x.histograms[i]!) : chunker.appendHistogram(ts[i]!, x.histograms[i]!);
            sink += r.created ? 1 : 0;
          }
        });
      })
      .add('decode wasm', () => { for (const c of chunks) sink += wasmCodec.decode(c).histograms.length; })
      .add('decode ts', () => { for (const c of chunks) sink += tsCodec.decode(c).histograms.length; });
    await bench.run();
    const cell: Record<string, string> = {};
    for (const task of bench.tasks) {
      const r = task.result;
      if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
      const perSample = (r.latency.mean * 1e6) / (HISTOGRAM_CHUNKS * SAMPLES_PER_CHUNK);
      cell[task.name] = `${perSample.toFixed(0)} (${(perSample / buckets).toFixed(1)})`;
    }
    histRows.push(`| ${float ? 'float' : 'integer'} | ${buckets} | ${cell['encode wasm']} | ${cell['encode ts']} | ${cell['append wasm']} | ${cell['decode wasm']} | ${cell['decode ts']} | ${(bytes / (HISTOGRAM_CHUNKS * SAMPLES_PER_CHUNK)).toFixed(1)} |`);
  }
}

console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString().slice(0, 10)}`);
console.log(`${SERIES} chunks x ${SAMPLES_PER_CHUNK} samples per pattern; ns per sample (mean)\n`);
console.log('| pattern | append wasm | append ts | decode wasm | decode ts | decode ts/wasm | iterate wasm | bytes/sample |');
console.log('|---|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
console.log(`\nNative histograms: ${HISTOGRAM_CHUNKS} chunks x ${SAMPLES_PER_CHUNK} scrapes (15 s, schema 3, counters rising);`);
console.log('ns per sample (ns per bucket), mean. encode: a whole chunk in one call; append: one sample at a time');
console.log('through HistogramChunker (Prometheus\' head rules, WebAssembly appender); decode: to Histogram objects.\n');
console.log('| histogram | buckets | encode wasm | encode ts | append wasm (chunker) | decode wasm | decode ts | bytes/sample |');
console.log('|---|---|---|---|---|---|---|---|');
for (const row of histRows) console.log(row);
if (sink === 0.5) console.log(sink);
