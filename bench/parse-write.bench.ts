// node --import tsx bench/parse-write.bench.ts — remote-write parsing on
// one thread, the worker-free function: series/s, samples/s and MB/s of
// request bytes, for 2000 x 1 and 500 x 1 requests of node_exporter-like
// series (8 labels), and 100 x 100 for the sample loop. Beside it the
// obvious alternative, the generated ts-proto decoder feeding
// AppendBatchBuilder, for scale. And the same series as remote write 2.0
// (io.prometheus.write.v2.Request: labels as references into a symbols
// table) through the same parser.
import { cpus } from 'node:os';
import { Bench } from 'tinybench';
import { WriteRequest } from '../src/gen/thanos/store/rpc.js';
import { Request as RequestV2 } from '../src/gen/prometheus/write/v2/types.js';
import type { TimeSeries } from '../src/gen/thanos/store/prompb/types.js';
import { AppendBatchBuilder } from '../src/record/append-batch.js';
import { instantiateHeadWasm } from '../src/wasm/head.js';
import { parseWriteRequest } from '../src/ingest/parse/parse-write.js';

const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 2000);
const METRICS = ['node_cpu_seconds_total', 'node_memory_MemFree_bytes', 'node_network_receive_bytes_total',
  'node_disk_io_time_seconds_total', 'node_filesystem_avail_bytes', 'node_load1'];
const MODES = ['idle', 'iowait', 'irq', 'nice', 'softirq', 'steal', 'system', 'user'];

/** Series i of a fleet: 8 labels, sorted, `samples` samples 15 s apart from late 2023. */
function nodeSeries(i: number, samples: number): TimeSeries {
  const host = Math.floor(i / 64);
  return {
    labels: [
      { name: '__name__', value: METRICS[i % METRICS.length]! },
      { name: 'cpu', value: String(i % 16) },
      { name: 'env', value: 'prod' },
      { name: 'instance', value: `10.0.${host >> 8}.${host & 255}:9100` },
      { name: 'job', value: 'node' },
      { name: 'mode', value: MODES[(i >> 4) % MODES.length]! },
      { name: 'region', value: 'eu-west-1' },
      { name: 'zone', value: `eu-west-1${'abc'[host % 3]}` },
    ],
    samples: Array.from({ length: samples }, (_, k) => ({ value: i * 1.25 + k * 0.5, timestamp: 1_700_000_000_000n + BigInt(i % 15) * 1000n + BigInt(k) * 15_000n })),
    exemplars: [],
    histograms: [],
  };
}

function request(series: number, samples: number): Uint8Array {
  const timeseries = Array.from({ length: series }, (_, i) => nodeSeries(i, samples));
  return WriteRequest.encode({ timeseries, tenant: 'team-a', replica: 0n }).finish();
}

/** The same series as a remote write 2.0 request, symbolized as Prometheus' sender does it. */
function requestV2(series: number, samples: number): Uint8Array {
  const symbols = [''];
  const refs = new Map<string, number>([['', 0]]);
  const ref = (s: string): number => {
    let r = refs.get(s);
    if (r === undefined) refs.set(s, (r = symbols.push(s) - 1));
    return r;
  };
  const timeseries = Array.from({ length: series }, (_, i) => {
    const s = nodeSeries(i, samples);
    return {
      labelsRefs: s.labels.flatMap((l) => [ref(l.name), ref(l.value)]),
      samples: s.samples.map((x) => ({ value: x.value, timestamp: x.timestamp, startTimestamp: 0n })),
      histograms: [],
      exemplars: [],
    };
  });
  return RequestV2.encode(RequestV2.fromPartial({ symbols, timeseries })).finish();
}

const wasm = instantiateHeadWasm();
const builderWasm = instantiateHeadWasm();
let sink = 0;

const SIZES = [[2000, 1], [500, 1], [100, 100]] as const;
const rows = new Map<string, string[]>(SIZES.map(([series, perSeries]) => [`${series} x ${perSeries}`, []]));

/** Runs `tasks` on one request size and keeps their rows. */
async function measure(series: number, perSeries: number, tasks: Array<[string, () => void]>, sizeOf: (name: string) => number): Promise<void> {
  const bench = new Bench({ time: TIME_MS, warmupTime: 500 });
  for (const [name, fn] of tasks) bench.add(name, fn);
  await bench.run();
  for (const task of bench.tasks) {
    const r = task.result;
    if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
    // Rates from the median: on a shared machine the mean carries other
    // processes' preemptions; both are shown.
    const sec = r.latency.p50 / 1000;
    const us = (ms: number): string => (ms * 1000).toFixed(0);
    const size = sizeOf(task.name);
    rows.get(`${series} x ${perSeries}`)!.push(`| ${series} x ${perSeries} | ${task.name} | ${(size / 1024).toFixed(0)} KiB | ${us(r.latency.p50)} µs (mean ${us(r.latency.mean)}) | ${fmt(series / sec)} | ${fmt(series * perSeries / sec)} | ${(size / sec / 1e6).toFixed(0)} |`);
  }
}

// The parser first, every size, as a pool worker runs it. The alternative
// comes after: it drives the same batch builder through add() (the
// library's and the tests' path, never a worker's), and run in between it
// changed how V8 compiled the parser's use of the builder (500 x 1: 220 ->
// 280 µs a request), which no worker ever sees.
for (const [series, perSeries] of SIZES) {
  const bytes = request(series, perSeries);
  const bytesV2 = requestV2(series, perSeries);
  await measure(series, perSeries, [
    ['parseWriteRequest', () => {
      sink += parseWriteRequest(bytes, { dialect: 'thanos' }, wasm).samples;
    }],
    ['parseWriteRequest, remote write 2.0', () => {
      sink += parseWriteRequest(bytesV2, { dialect: 'prometheus-v2', tenant: 'team-a' }, wasm).samples;
    }],
  ], (name) => (name.endsWith('2.0') ? bytesV2.length : bytes.length));
}
for (const [series, perSeries] of SIZES) {
  const bytes = request(series, perSeries);
  await measure(series, perSeries, [
    ['ts-proto decode + AppendBatchBuilder', () => {
      const req = WriteRequest.decode(bytes);
      const b = new AppendBatchBuilder(builderWasm, ['tenant_id', req.tenant]);
      for (const ts of req.timeseries) {
        const labels: string[] = [];
        for (const l of ts.labels) labels.push(l.name, l.value);
        b.add(labels, BigInt64Array.from(ts.samples, (s) => s.timestamp), Float64Array.from(ts.samples, (s) => s.value));
      }
      sink += b.finish().byteLength;
    }],
  ], () => bytes.length);
}

function fmt(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${(n / 1e3).toFixed(0)} k`;
}

console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString().slice(0, 10)}`);
console.log('one thread, no pool; label hashes (one WebAssembly call per request) included\n');
console.log('| series x samples | parser | size | time per request: median (mean) | series/s | samples/s | MB/s |');
console.log('|---|---|---|---|---|---|---|');
for (const row of [...rows.values()].flat()) console.log(row);
if (sink === 0.5) console.log(sink);
