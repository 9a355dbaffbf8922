import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadCodec } from '../../src/chunkenc/index.js';
import { Db } from '../../src/db/db.js';
import type { DbOptions } from '../../src/db/options.js';
import { AppendBatchBuilder } from '../../src/record/append-batch.js';
import { instantiateHeadWasm } from '../../src/wasm/head.js';
import type { HeadWasm } from '../../src/wasm/head.js';
import type { SelectedSeries } from '../../src/query/types.js';

let builderWasm: HeadWasm | undefined;

/** A batch builder on its own module instance (as a pool worker has). */
export function batchBuilder(tenant?: readonly [string, string]): AppendBatchBuilder {
  builderWasm ??= instantiateHeadWasm();
  return new AppendBatchBuilder(builderWasm, tenant);
}

/** A temporary directory, removed by the returned function. */
export function tempDir(prefix = 'strata-db-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Opens a Db with small files so that tests roll segments quickly. */
export function openSmallDb(dataDir: string, extra: Partial<DbOptions> = {}): Promise<Db> {
  return Db.open({
    dataDir,
    walSegmentBytes: 64 * 1024,
    chunkSegmentBytes: 64 * 1024,
    walFsyncIntervalMs: 50,
    retentionIntervalMs: 3_600_000,
    ...extra,
  });
}

export interface SeriesSamples {
  labels: string[];
  t: number[];
  /** Value bit patterns as hex, so NaN payloads compare exactly. */
  v: string[];
}

/** Decodes every chunk of the selected series. */
export function decodeSelected(series: readonly SelectedSeries[]): SeriesSamples[] {
  const codec = threadCodec();
  return series.map((s) => {
    const out: SeriesSamples = { labels: [...s.labels], t: [], v: [] };
    for (const c of s.chunks) {
      const d = codec.decode(c.data);
      const bits = new BigUint64Array(d.values.buffer, d.values.byteOffset, d.values.length);
      for (let i = 0; i < d.timestamps.length; i++) {
        out.t.push(Number(d.timestamps[i]!));
        out.v.push(bits[i]!.toString(16));
      }
    }
    return out;
  });
}

/** Hex bit pattern of a float64. */
export function bitsHex(v: number): string {
  const f = new Float64Array([v]);
  return new BigUint64Array(f.buffer)[0]!.toString(16);
}

/** One series' samples as typed arrays. */
export function samples(ts: readonly number[], vs: readonly number[]): [BigInt64Array, Float64Array] {
  return [BigInt64Array.from(ts.map(BigInt)), Float64Array.from(vs)];
}
