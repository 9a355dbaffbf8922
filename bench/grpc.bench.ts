// npm run bench:grpc — the Store API over loopback against `strata serve`:
// RemoteWrite throughput (100k series, 500 series x 1 sample a request,
// 4, 8 and 16 concurrent streams), a Series read of 10k series x 120
// samples (series/s, MB/s of chunk data), and LabelValues latency over
// 100k values; then a Series read of 10k series x 2 h (480 samples) from
// the head, and the same read once the head has cut those 2 h into a
// block; then 10k series x 120 samples (the block's first 30 min) from
// that block. Requests are encoded once and patched in place each round,
// so the client (sharing the 2 cores) costs little. Each read says the
// server's CPU time per call (user + system, all its threads, from
// /proc) and the load average, as other work may share the cores. Reads
// start once the server has settled after the writes before them (its
// CPU use below 10% for 0.5 s, waiting at most 10 s): until then it is
// still cutting chunks and writing its WAL, which the figure would count.
//
// Env: BENCH_SERIES (100000), BENCH_ROUNDS (4), BENCH_READ_SERIES (10000),
// BENCH_READS (5: reads of each case, the best is reported),
// BENCH_BLOCK_WAIT (300 s: longest wait for the block).
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { putUvarint, uvarintSize } from '../src/encoding/varint.js';
import { SeriesResponse, LabelValuesRequest, LabelValuesResponse, SeriesRequest } from '../src/gen/thanos/store/rpc.js';
import { startStrata } from './support/strata-server.js';
import { connect, rawSeriesCall } from './support/raw-series.js';
import { loadText } from './support/load-average.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 100_000);
const PER_REQUEST = 500;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const READ_SERIES = Number(process.env.BENCH_READ_SERIES ?? 10_000);
const READ_SAMPLES = 120;
/** The 2 h read: 480 samples 15 s apart from START (a 2 h boundary), in the head's first block range. */
const BLOCK_READ_SAMPLES = 480;
const TWO_HOURS = 7_200_000;
const START = 1_699_999_200_000;
/** A handful of other series get one sample this much past the 2 h range: the head then spans more than 1.5 ranges and cuts it. */
const NEWER_AFTER_MS = 3.5 * 3_600_000 + 15_000;
const HANDFUL = 5;
const BLOCK_WAIT_MS = Number(process.env.BENCH_BLOCK_WAIT ?? 300) * 1000;

/** A WriteRequest encoded once, with the byte offsets of each sample's value and timestamp. */
interface Template { bytes: Buffer; valueAt: number[]; tsAt: number[] }

/** The bytes of `n` as an uvarint. */
function uvarintBytes(n: number): number[] {
  const b = new Uint8Array(uvarintSize(n));
  putUvarint(b, 0, n);
  return [...b];
}

function lenField(field: number, body: number[]): number[] {
  return [(field << 3) | 2, ...uvarintBytes(body.length), ...body];
}

function str(field: number, s: string): number[] {
  return lenField(field, [...Buffer.from(s)]);
}

function template(labelSets: string[][]): Template {
  const bytes: number[] = [];
  const valueAt: number[] = [];
  const tsAt: number[] = [];
  for (const labels of labelSets) {
    const ts: number[] = [];
    for (let i = 0; i < labels.length; i += 2) ts.push(...lenField(1, [...str(1, labels[i]!), ...str(2, labels[i + 1]!)]));
    const sample = [0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, ...uvarintBytes(START)];
    const seriesBody = [...ts, ...lenField(2, sample)];
    const seriesField = lenField(1, seriesBody);
    const sampleStart = bytes.length + seriesField.length - sample.length;
    valueAt.push(sampleStart + 1);
    tsAt.push(sampleStart + 10);
    bytes.push(...seriesField);
  }
  return { bytes: Buffer.from(bytes), valueAt, tsAt };
}

function patch(t: Template, ts: number, value: (i: number) => number): void {
  const tsBytes = uvarintBytes(ts);
  for (let i = 0; i < t.valueAt.length; i++) {
    t.bytes.writeDoubleLE(value(i), t.valueAt[i]!);
    for (let k = 0; k < tsBytes.length; k++) t.bytes[t.tsAt[i]! + k] = tsBytes[k]!;
  }
}

const raw = (b: Buffer): Buffer => b;
const Client = grpc.makeGenericClientConstructor({
  remoteWrite: { path: '/thanos.WriteableStore/RemoteWrite', requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw },
  series: { path: '/thanos.Store/Series', requestStream: false, responseStream: true, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw },
  labelValues: { path: '/thanos.Store/LabelValues', requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw },
}, 'bench');

type RawClient = grpc.Client & {
  remoteWrite(req: Buffer, cb: (err: grpc.ServiceError | null, res?: Buffer) => void): void;
  series(req: Buffer): grpc.ClientReadableStream<Buffer>;
  labelValues(req: Buffer, cb: (err: grpc.ServiceError | null, res?: Buffer) => void): void;
};

function write(client: RawClient, t: Template): Promise<void> {
  return new Promise((done, fail) => client.remoteWrite(t.bytes, (err) => (err ? fail(err) : done())));
}

/** Writes `rounds` rounds over the templates with `streams` concurrent callers; each template stays with one caller, in order. */
async function ingest(client: RawClient, templates: Template[], firstRound: number, rounds: number, streams: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: streams }, async (_, s) => {
    for (let r = firstRound; r < firstRound + rounds; r++) {
      for (let k = s; k < templates.length; k += streams) {
        const t = templates[k]!;
        patch(t, START + r * 15_000, (i) => (k * PER_REQUEST + i) % 3 === 0 ? r * 10 + i : Math.sin(r + i) * 100);
        await write(client, t);
      }
    }
  }));
  return performance.now() - t0;
}

const labelsOf = (i: number, metric: string): string[] => [
  '__name__', `${metric}_${i % 100}`, 'group', `g${i % 10}`, 'instance', `host-${Math.floor(i / 100)}:9100`, 'job', 'node', 'series_id', String(i).padStart(6, '0'),
];

function templatesFor(count: number, metric: string): Template[] {
  const out: Template[] = [];
  for (let first = 0; first < count; first += PER_REQUEST) {
    const sets: string[][] = [];
    for (let i = first; i < Math.min(count, first + PER_REQUEST); i++) sets.push(labelsOf(i, metric));
    out.push(template(sets));
  }
  return out;
}

/** Engine metrics of the server's /metrics (each name summed over its label sets). */
async function metricsOf(httpPort: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`, { signal: AbortSignal.timeout(30_000) })).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})?\s+(\S+)/.exec(line);
    if (m) out.set(m[1]!, (out.get(m[1]!) ?? 0) + Number(m[2]));
  }
  return out;
}

/** Waits (bounded) until a block was cut from the head and the head holds nothing before `end`. */
async function waitForBlock(httpPort: number, end: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < BLOCK_WAIT_MS && i < 100_000; i++) {
    const m = await metricsOf(httpPort);
    if ((m.get('strata_head_blocks_written_total') ?? 0) >= 1 && (m.get('strata_head_min_time_seconds') ?? 0) * 1000 >= end) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no block of the 2 h range within ${BLOCK_WAIT_MS} ms`);
}

const server = await startStrata(['--workers', '2']);
const client = new Client(`127.0.0.1:${server.grpcPort}`, grpc.credentials.createInsecure(), {
  'grpc.max_receive_message_length': -1,
}) as unknown as RawClient;
const rows: string[] = [];
let restarted: Awaited<ReturnType<typeof startStrata>> | undefined;
let client2: RawClient | undefined;
let blockNote = '';
/** CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 1/100 s (USER_HZ)
  } catch {
    return NaN;
  }
}
/** Waits (at most 10 s) until the process used under 10% of a core for 0.5 s; resolves with the seconds waited. */
async function settled(pid: number | undefined): Promise<number> {
  const t0 = performance.now();
  let before = cpuMsOf(pid);
  for (let i = 0; i < 20 && !Number.isNaN(before); i++) {
    await new Promise((r) => setTimeout(r, 500));
    const now = cpuMsOf(pid);
    if (now - before < 50) break;
    before = now;
  }
  return (performance.now() - t0) / 1000;
}
const f = (x: number, d = 0): string => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
try {
  const templates = templatesFor(SERIES, 'node_metric');
  const createMs = await ingest(client, templates, 0, 1, 8);
  rows.push(`| RemoteWrite, first round (creates ${f(SERIES)} series), 8 streams | ${f(SERIES / (createMs / 1000))} samples/s |`);
  let round = 1;
  for (const streams of [4, 8, 16]) {
    const ms = await ingest(client, templates, round, ROUNDS, streams);
    round += ROUNDS;
    rows.push(`| RemoteWrite, ${f(SERIES)} series, ${PER_REQUEST} x 1 sample a request, ${streams} streams | ${f((SERIES * ROUNDS) / (ms / 1000))} samples/s |`);
  }

  // LabelValues over 100k values.
  const lvReq = Buffer.from(LabelValuesRequest.encode(LabelValuesRequest.fromPartial({ label: 'series_id', start: 0n, end: BigInt(START + 10 ** 9) })).finish());
  const lat: number[] = [];
  let values = 0;
  const lvWaitedS = await settled(server.child.pid);
  const lvLoad = loadText();
  const lvCpu0 = cpuMsOf(server.child.pid);
  for (let i = 0; i < 40; i++) {
    const t0 = performance.now();
    const res = await new Promise<Buffer>((done, fail) => client.labelValues(lvReq, (err, r) => (err ? fail(err) : done(r!))));
    lat.push(performance.now() - t0);
    values = LabelValuesResponse.decode(res).values.length;
  }
  const lvCpu = (cpuMsOf(server.child.pid) - lvCpu0) / lat.length;
  lat.sort((a, b) => a - b);
  rows.push(`| LabelValues over ${f(values)} values | p50 ${f(lat[Math.floor(lat.length / 2)]!, 1)} ms, p99 ${f(lat[Math.ceil(lat.length * 0.99) - 1]!, 1)} ms; server CPU ${f(lvCpu, 1)} ms a call; load ${lvLoad}; server settled in ${f(lvWaitedS, 1)} s |`);

  // A Series read of 10k series x 120 samples.
  const readTemplates = templatesFor(READ_SERIES, 'bench_read');
  await ingest(client, readTemplates, 0, READ_SAMPLES, 8);
  const seriesReq = Buffer.from(SeriesRequest.encode(SeriesRequest.fromPartial({
    minTime: 0n, maxTime: BigInt(START + 10 ** 9), matchers: [{ type: 0, name: 'job', value: 'node' }, { type: 2, name: '__name__', value: 'bench_read_.*' }],
  })).finish());
  // Read over bare HTTP/2 (see support/raw-series.ts): the client then costs
  // about what a Go client would, and the figure is the server's. First from
  // the head's open chunks, then, after a restart (a stop flushes the head),
  // from the memory-mapped chunk files.
  const READS = Number(process.env.BENCH_READS ?? 5);
  const readAll = async (port: number, where: string, request = seriesReq, samples = READ_SAMPLES, pid?: number): Promise<void> => {
    const waitedS = await settled(pid);
    const session = connect(`127.0.0.1:${port}`);
    let best = Infinity;
    const times: number[] = [];
    let frames: Buffer[] = [];
    const load = loadText();
    const cpu0 = cpuMsOf(pid);
    for (let i = 0; i < READS; i++) {
      const t0 = performance.now();
      const answer = await rawSeriesCall(session, request);
      const ms = performance.now() - t0;
      if (answer.status !== '0') throw new Error(`Series answered status ${answer.status}`);
      if (ms < best) best = ms;
      times.push(ms);
      frames = answer.messages;
    }
    const cpuPerRead = (cpuMsOf(pid) - cpu0) / READS;
    const median = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
    session.close();
    let chunkBytes = 0;
    let series = 0;
    let sampleCount = 0;
    for (const fr of frames) {
      const r = SeriesResponse.decode(fr);
      if (r.result?.$case !== 'series') continue;
      series++;
      for (const c of r.result.value.chunks) {
        const data = c.raw?.data ?? new Uint8Array(0);
        chunkBytes += data.length;
        sampleCount += data.length >= 2 ? (data[0]! << 8) | data[1]! : 0; // an XOR chunk starts with its sample count
      }
    }
    const short = series === READ_SERIES && sampleCount === series * samples ? '' : ` (expected ${f(READ_SERIES)} series of ${samples} samples, got ${f(series)} series, ${f(sampleCount)} samples!)`;
    rows.push(`| Series read from ${where}, ${f(series)} series x ${samples} samples (best of ${READS})${short} | ${f(series / (best / 1000))} series/s, ${f(chunkBytes / 1e6 / (best / 1000))} MB/s of chunk data (${f(chunkBytes / 1e6, 1)} MB), ${f(best, 1)} ms; median ${f(chunkBytes / 1e6 / (median / 1000))} MB/s; server CPU ${f(cpuPerRead, 1)} ms a read; load ${load}; server settled in ${f(waitedS, 1)} s |`);
  };
  await readAll(server.grpcPort, 'open head chunks', seriesReq, READ_SAMPLES, server.child.pid);
  client.close();
  await server.stop({ keep: true });
  restarted = await startStrata(['--workers', '2'], server.dataDir);
  await readAll(restarted.grpcPort, 'chunk files (after a restart)', seriesReq, READ_SAMPLES, restarted.child.pid);

  // 10k series x 2 h: 480 samples each from START (the head spans under
  // 1.5 ranges, so nothing is cut yet), read from the head; then one newer
  // sample for a handful of other series 3.5 h past the range makes the
  // head cut [START, START + 2 h) into a block and let go of it (the block
  // also holds the series written above), and the same read comes from the block.
  client2 = new Client(`127.0.0.1:${restarted.grpcPort}`, grpc.credentials.createInsecure(), {
    'grpc.max_receive_message_length': -1,
  }) as unknown as RawClient;
  await ingest(client2, templatesFor(READ_SERIES, 'bench_2h'), 0, BLOCK_READ_SAMPLES, 8);
  const twoHoursReq = Buffer.from(SeriesRequest.encode(SeriesRequest.fromPartial({
    minTime: BigInt(START), maxTime: BigInt(START + TWO_HOURS - 1), matchers: [{ type: 0, name: 'job', value: 'node' }, { type: 2, name: '__name__', value: 'bench_2h_.*' }],
  })).finish());
  const before = await metricsOf(restarted.httpPort);
  if ((before.get('strata_head_blocks_written_total') ?? 0) > 0) throw new Error('the head cut a block before the 2 h read from the head');
  await readAll(restarted.grpcPort, 'the head (2 h)', twoHoursReq, BLOCK_READ_SAMPLES, restarted.child.pid);
  const newer = template(Array.from({ length: HANDFUL }, (_, i) => ['__name__', 'bench_newer', 'instance', `newer-${i}:9100`, 'job', 'node']));
  patch(newer, START + TWO_HOURS + NEWER_AFTER_MS, (i) => i);
  await write(client2, newer);
  const waitedMs = await waitForBlock(restarted.httpPort, START + TWO_HOURS);
  const after = await metricsOf(restarted.httpPort);
  blockNote = `block of the 2 h range cut and the head let go of it ${f(waitedMs / 1000, 1)} s after the newer sample; then ${f(after.get('strata_blocks_loaded') ?? NaN)} block(s), ${f(after.get('strata_head_series') ?? NaN)} head series`;
  await new Promise((r) => setTimeout(r, 1000));
  await readAll(restarted.grpcPort, 'a block (the same 2 h, cut from the head)', twoHoursReq, BLOCK_READ_SAMPLES, restarted.child.pid);
  // The block's chunks hold 120 samples each: its first 30 min is one chunk a series.
  const firstChunkReq = Buffer.from(SeriesRequest.encode(SeriesRequest.fromPartial({
    minTime: BigInt(START), maxTime: BigInt(START + (READ_SAMPLES - 1) * 15_000), matchers: [{ type: 0, name: 'job', value: 'node' }, { type: 2, name: '__name__', value: 'bench_2h_.*' }],
  })).finish());
  await readAll(restarted.grpcPort, 'a block (its first 30 min)', firstChunkReq, READ_SAMPLES, restarted.child.pid);
} finally {
  client.close();
  client2?.close();
  await restarted?.stop();
  await server.stop();
}

console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString().slice(0, 10)}`);
console.log('strata serve --workers 2 on 127.0.0.1; client in this process (same 2 cores)\n');
console.log('| measure | value |');
console.log('|---|---|');
for (const r of rows) console.log(r);
if (blockNote !== '') console.log(`\n${blockNote}`);
