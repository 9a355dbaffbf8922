/**
 * Blocks to ship: `blocks` consecutive 2 h blocks of the same `series`
 * node_exporter-like series (bench/load: about 500 series a host, counters
 * and gauges that move as a node_exporter's do), one sample every 15 s,
 * written with Strata's block writer (src/blocks/block-writer.ts) in
 * Prometheus' format: chunks of 120 samples encoded by Strata's XOR codec,
 * one chunk segment file a block (under the 512 MiB segment limit), an
 * index, meta.json. What a Prometheus or `strata serve` with that many
 * series cuts every 2 h, byte for byte in layout (the values are
 * generated, so bytes per sample are near the churn benchmark's 3.04).
 *
 * Made once and kept under the temporary directory (the name carries the
 * parameters); a later run reuses them.
 */
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { listBlockDirs } from '../../src/blocks/block-reader.js';
import { writeBlock } from '../../src/blocks/block-writer.js';
import { ENCODING_XOR } from '../../src/chunkenc/encoding.js';
import { type BlockChunk, type BlockSeriesInput } from '../../src/blocks/types.js';
import { threadCodec } from '../../src/chunkenc/index.js';
import { compareLabels } from '../../src/encoding/utf8.js';
import { nodeExporterCatalogue } from '../load/node-exporter.js';
import { SCRAPE_INTERVAL_MS, ValueStepper } from '../load/values.js';

const RANGE_MS = 2 * 3_600_000;
/** Samples a series has in one 2 h block at 15 s. */
const SAMPLES_PER_BLOCK = RANGE_MS / SCRAPE_INTERVAL_MS;
/** Prometheus cuts a head chunk at 120 samples (tsdb/head_append.go: samplesPerChunk). */
const SAMPLES_PER_CHUNK = 120;
/** 2023-11-14T22:00:00Z, on the 2 h grid. */
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % RANGE_MS);

export interface ShipBlocks {
  /** The directory holding the block directories. */
  dir: string;
  /** The block directories, oldest first. */
  blocks: string[];
  /** Seconds it took to make them (0 when reused). */
  madeSeconds: number;
}

/** The blocks for `series` series x `blocks` blocks, made now or reused. */
export async function shipBlocks(series: number, blocks: number): Promise<ShipBlocks> {
  const dir = join(tmpdir(), `strata-bench-ship-${series}x${blocks}-v1`);
  if (existsSync(dir) && listBlockDirs(dir).length === blocks) return { dir, blocks: listBlockDirs(dir).sort(), madeSeconds: 0 };
  const work = mkdtempSync(join(tmpdir(), 'strata-bench-ship-work-'));
  const t0 = performance.now();
  try {
    await writeBlocks(work, series, blocks);
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    throw err;
  }
  return { dir, blocks: listBlockDirs(dir).sort(), madeSeconds: (performance.now() - t0) / 1000 };
}

async function writeBlocks(out: string, count: number, blocks: number): Promise<void> {
  const cat = nodeExporterCatalogue(count);
  const labels = Array.from({ length: count }, (_, i) => cat.labels(i));
  const order = Array.from({ length: count }, (_, i) => i).sort((a, b) => compareLabels(labels[a]!, labels[b]!));
  const symbols = [...new Set(labels.flat())];
  const codec = threadCodec();
  const stepper = new ValueStepper(cat);
  // One chunk's samples of every series at a time, series-major so that a
  // series' 120 samples are one contiguous slice to encode.
  const ts = new BigInt64Array(count * SAMPLES_PER_CHUNK);
  const vs = new Float64Array(count * SAMPLES_PER_CHUNK);
  const values = new Float64Array(count);
  const times = new Float64Array(count);
  for (let b = 0; b < blocks; b++) {
    const minTime = T0 + b * RANGE_MS;
    const maxTime = minTime + RANGE_MS;
    const chunks: BlockChunk[][] = Array.from({ length: count }, () => []);
    for (let first = 0; first < SAMPLES_PER_BLOCK; first += SAMPLES_PER_CHUNK) {
      const n = Math.min(SAMPLES_PER_CHUNK, SAMPLES_PER_BLOCK - first);
      for (let s = 0; s < n; s++) {
        stepper.next(T0, values, times);
        for (let i = 0; i < count; i++) {
          ts[i * SAMPLES_PER_CHUNK + s] = BigInt(times[i]!);
          vs[i * SAMPLES_PER_CHUNK + s] = values[i]!;
        }
      }
      for (let i = 0; i < count; i++) {
        const at = i * SAMPLES_PER_CHUNK;
        // A host's scrape phase (up to 15 s) and the odd late scrape may put
        // its last sample past the block's end: that sample is left out.
        let k = n;
        while (k > 0 && Number(ts[at + k - 1]!) >= maxTime) k--;
        if (k === 0) continue;
        chunks[i]!.push({
          minT: Number(ts[at]!), maxT: Number(ts[at + k - 1]!), encoding: ENCODING_XOR,
          data: codec.encode(ts.subarray(at, at + k), vs.subarray(at, at + k)),
        });
      }
    }
    const input: BlockSeriesInput[] = order.map((i) => ({ labels: labels[i]!, chunks: chunks[i]! }));
    const meta = await writeBlock({ blocksDir: out, minTime, maxTime, symbols, series: input });
    if (meta === undefined) throw new Error(`block ${b} came out empty`);
  }
}
