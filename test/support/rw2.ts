/**
 * Remote write 2.0 messages as a sender builds them, independently of
 * Strata's parser and of its generated code: the official definition
 * (proto/prometheus/write/v2/types.proto, Prometheus' file) compiled by
 * protoc into a descriptor set, and messages made and serialized by
 * @bufbuild/protobuf's reflection over it.
 *
 * ```ts
 * const s = new Symbols();
 * const bytes = rw2Bytes({ symbols: s.table, timeseries: [{ labelsRefs: s.refs('__name__', 'up'), samples: [{ value: 1, timestamp: 1000n }] }] });
 * ```
 * (build the series first, then take `s.table`: refs add to it.)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create, createFileRegistry, toBinary, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { fromBinary } from '@bufbuild/protobuf';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PROTO = 'prometheus/write/v2/types.proto';

let request: DescMessage | undefined;

/** io.prometheus.write.v2.Request's descriptor, compiled from the official .proto once per process. */
export function requestDescriptor(): DescMessage {
  if (request !== undefined) return request;
  const require = createRequire(join(root, 'package.json'));
  const protocDir = dirname(require.resolve('protoc/package.json'));
  const protocBin = join(protocDir, (require(join(protocDir, 'package.json')) as { bin: { protoc: string } }).bin.protoc);
  const dir = mkdtempSync(join(tmpdir(), 'strata-rw2-'));
  try {
    const out = join(dir, 'set.pb');
    const run = spawnSync(process.execPath, [protocBin, `--proto_path=${join(root, 'proto')}`, '--include_imports', `--descriptor_set_out=${out}`, PROTO], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (run.status !== 0) throw new Error(`protoc failed (${run.status ?? run.signal}): ${run.stderr}`);
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(out)));
    const desc = registry.getMessage('io.prometheus.write.v2.Request');
    if (desc === undefined) throw new Error('io.prometheus.write.v2.Request not in the descriptor set');
    request = desc;
    return desc;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A Request as @bufbuild's create() takes it (field names in lowerCamelCase, int64 as bigint). */
export interface Rw2Request {
  symbols?: string[];
  timeseries?: Rw2Series[];
}

export interface Rw2Series {
  labelsRefs?: number[];
  samples?: Array<{ value?: number; timestamp?: bigint; startTimestamp?: bigint }>;
  histograms?: Array<Record<string, unknown>>;
  exemplars?: Array<{ labelsRefs?: number[]; value?: number; timestamp?: bigint }>;
  metadata?: { type?: number; helpRef?: number; unitRef?: number };
}

/** The serialized Request (not compressed). */
export function rw2Bytes(init: Rw2Request): Uint8Array {
  const desc = requestDescriptor();
  return toBinary(desc, create(desc, init as never));
}

/** Metadata.MetricType numbers. */
export const METRIC_TYPE = { unspecified: 0, counter: 1, gauge: 2, histogram: 3, gaugehistogram: 4, summary: 5, info: 6, stateset: 7 } as const;

/** A small integer native histogram, in create()'s shape. */
export function rw2Histogram(timestamp: bigint): Record<string, unknown> {
  return {
    count: { case: 'countInt', value: 3n },
    sum: 1.5,
    schema: 1,
    zeroThreshold: 0.001,
    zeroCount: { case: 'zeroCountInt', value: 0n },
    positiveSpans: [{ offset: 0, length: 2 }],
    positiveDeltas: [1n, 1n],
    timestamp,
  };
}

/** A symbols table as a sender keeps one: the empty string first, each string once. */
export class Symbols {
  readonly table: string[] = [''];
  private readonly index = new Map<string, number>([['', 0]]);

  ref(s: string): number {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.table.push(s) - 1;
      this.index.set(s, i);
    }
    return i;
  }

  /** References of name, value, name, value ... */
  refs(...pairs: string[]): number[] {
    return pairs.map((s) => this.ref(s));
  }
}
