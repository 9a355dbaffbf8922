// node --import tsx bench/blocks-read.bench.ts — block index and chunk reads.
//
// Makes (once, cached under the temp dir) a Prometheus block with promtool
// from generated OpenMetrics: BENCH_SERIES series (default 200,000) with
// 5 labels each (__name__ of 50 metrics, instance of 1,000, job of 10, a
// unique pod, a zone of 3) and 4 samples, then times BlockReader.open,
// series() over every series (first pass with cold symbol cache, then warm
// passes), chunk() over every chunk, and postings lookups. Without promtool
// it falls back to the largest committed fixture block.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockReader, listBlockDirs } from '../src/blocks/block-reader.js';
import { havePromtool, prng, promtoolCreateBlocks, type OmSeries } from '../test/blocks/promtool-block.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 200_000);
const WARM_PASSES = Number(process.env.BENCH_PASSES ?? 7);

function makeBlock(): string {
  const dir = join(tmpdir(), `strata-bench-block-${SERIES}-v1`);
  if (existsSync(dir) && listBlockDirs(dir).length > 0) return listBlockDirs(dir)[0]!;
  const work = mkdtempSync(join(tmpdir(), 'strata-bench-work-'));
  try {
    const rand = prng(7);
    const series: OmSeries[] = [];
    const metrics = 50;
    const perMetric = Math.ceil(SERIES / metrics);
    const t0 = 1_700_006_400_000 + 600_000;
    for (let m = 0; m < metrics && series.length < SERIES; m++) {
      for (let i = 0; i < perMetric && series.length < SERIES; i++) {
        const n = series.length;
        const labels = [
          '__name__', `bench_metric_${String(m).padStart(2, '0')}_total`,
          'instance', `host-${n % 1000}.example.org:9100`,
          'job', `job-${n % 10}`,
          'pod', `pod-${(n * 2654435761 >>> 0).toString(36)}-${n}`,
          'zone', ['eu-west-1a', 'eu-west-1b', 'ünïcode-zone'][n % 3]!,
        ];
        const timestamps = [0, 1, 2, 3].map((k) => t0 + k * 15_000);
        let v = Math.floor(rand() * 1000);
        const values = timestamps.map(() => (v += Math.floor(rand() * 10)));
        series.push({ labels, timestamps, values });
      }
    }
    const out = join(work, 'blocks');
    mkdirSync(out);
    const t = performance.now();
    promtoolCreateBlocks(series, work, out);
    console.log(`promtool made the block in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(out, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return listBlockDirs(dir)[0]!;
}

let blockDir: string;
if (havePromtool()) {
  blockDir = makeBlock();
} else {
  console.log('promtool not on the PATH: using the largest fixture block');
  blockDir = listBlockDirs(new URL('../test/fixtures/prometheus/blocks', import.meta.url).pathname)
    .map((d) => BlockReader.open(d))
    .sort((a, b) => b.meta.stats.numSeries - a.meta.stats.numSeries)[0]!.dir;
}

const tOpen = performance.now();
const block = BlockReader.open(blockDir);
const openMs = performance.now() - tOpen;
const refs = block.index.allPostings();
const n = refs.length;
const out = { labels: [] as string[], chunks: [] as number[] };
let sink = 0;

/** One series() pass over every series: [wall ns, CPU ns] per series (CPU time is steadier on a busy machine). */
function passSeries(): [number, number] {
  const cpu = process.cpuUsage();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    block.index.series(refs[i]!, out);
    sink += out.labels.length + out.chunks.length;
  }
  const wall = Number(process.hrtime.bigint() - t) / n;
  const used = process.cpuUsage(cpu);
  return [wall, ((used.user + used.system) * 1000) / n];
}

const cold = passSeries();
const warmWall: number[] = [];
const warmCpu: number[] = [];
for (let p = 0; p < WARM_PASSES; p++) {
  const [w, c] = passSeries();
  warmWall.push(w);
  warmCpu.push(c);
}
warmWall.sort((a, b) => a - b);
warmCpu.sort((a, b) => a - b);

// chunk() over every chunk ref.
const chunkRefs: number[] = [];
for (let i = 0; i < n; i++) {
  block.index.series(refs[i]!, out);
  for (let k = 2; k < out.chunks.length; k += 3) chunkRefs.push(out.chunks[k]!);
}
const chunkNs: number[] = [];
for (let p = 0; p < 5; p++) {
  const t = process.hrtime.bigint();
  for (const r of chunkRefs) sink += block.chunks.chunk(r).data.length;
  chunkNs.push(Number(process.hrtime.bigint() - t) / chunkRefs.length);
}
chunkNs.sort((a, b) => a - b);

// Postings: one value list per label name, then lookups of every job and zone value.
const names = block.index.labelNames();
const tValues = performance.now();
let values = 0;
for (const name of names) values += block.index.labelValues(name).length;
const valuesMs = performance.now() - tValues;
const lookups: Array<[string, string]> = [];
for (const name of ['job', 'zone', 'instance']) for (const v of block.index.labelValues(name)) lookups.push([name, v]);
const tPost = process.hrtime.bigint();
let postingsLen = 0;
for (const [name, v] of lookups) postingsLen += block.index.postings(name, v).length;
const postNs = Number(process.hrtime.bigint() - tPost) / lookups.length;
const tAll = process.hrtime.bigint();
sink += block.index.allPostings().length;
const allMs = Number(process.hrtime.bigint() - tAll) / 1e6;

const median = (xs: number[]): number => xs[Math.floor(xs.length / 2)]!;
console.log(`Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString().slice(0, 10)}`);
console.log(`block ${block.ulid}: ${n} series, ${chunkRefs.length} chunks, index ${(block.index.size / 1e6).toFixed(1)} MB, ${names.length} label names, ${values} values\n`);
console.log('| what | figure |');
console.log('|---|---|');
console.log(`| BlockReader.open | ${openMs.toFixed(2)} ms |`);
console.log(`| series(), first pass (symbols decoded on first use), wall / CPU | ${cold[0].toFixed(0)} / ${cold[1].toFixed(0)} ns/series |`);
console.log(`| series(), warm passes, wall: best / median of ${WARM_PASSES} | ${warmWall[0]!.toFixed(0)} / ${median(warmWall).toFixed(0)} ns/series |`);
console.log(`| series(), warm passes, CPU time: best / median of ${WARM_PASSES} | ${warmCpu[0]!.toFixed(0)} / ${median(warmCpu).toFixed(0)} ns/series |`);
console.log(`| chunk() (view, no CRC): best / median of 5 | ${chunkNs[0]!.toFixed(0)} / ${median(chunkNs).toFixed(0)} ns/chunk |`);
console.log(`| labelValues() of every name | ${valuesMs.toFixed(1)} ms |`);
console.log(`| postings(name, value), ${lookups.length} lookups, ${postingsLen} refs in all | ${(postNs / 1000).toFixed(1)} µs/lookup |`);
console.log(`| allPostings() (${n} refs, copy + CRC) | ${allMs.toFixed(2)} ms |`);
if (sink === 0.5) console.log(sink);
block.close();
