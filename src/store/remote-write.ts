import type { Db } from '../db/db.js';
import { rejectionError } from '../db/rejections.js';
import { viewAppendBatch } from '../head/append-batch.js';
import type { CodecPool } from '../pool/codec-pool.js';
import { parseWriteInPool } from '../remote-write/pool-task.js';
import { invalidArgument } from './errors.js';

/** What a remote write stored, and what it refused (the error to answer with, if any). */
export interface WriteOutcome {
  samples: number;
  error?: Error;
}

/**
 * One remote-write request, from raw bytes: parsed in the pool (labels
 * validated, tenant label merged, hashes computed), appended by the engine
 * on this thread. Valid series are written even when others are refused.
 * Refusals: invalid label sets and native histograms are InvalidArgument;
 * sample conflicts AlreadyExists (when both happen, InvalidArgument, the
 * one retrying cannot fix, names both).
 */
export async function remoteWrite(
  db: Db,
  pool: CodecPool,
  bytes: Uint8Array,
  opts: {
    dialect: 'thanos' | 'prometheus';
    tenantLabel: string;
    tenant?: string;
    /** The bytes are a snappy block (HTTP remote write), decompressed in the pool first, up to this size. */
    snappy?: { maxDecodedBytes: number };
  },
): Promise<WriteOutcome> {
  const { snappy, ...parseOpts } = opts;
  const parsed = await parseWriteInPool(pool, bytes, parseOpts, snappy === undefined ? {} : { snappy });
  const batch = parsed.batch;
  const result = viewAppendBatch(batch).entries > 0 ? db.append(batch) : undefined;
  const problems: string[] = [];
  if (parsed.invalidSeries > 0) problems.push(`${parsed.invalidSeries} series with invalid labels (first: ${parsed.firstInvalid})`);
  if (parsed.histogramSamples > 0) {
    problems.push(`${parsed.histogramSamples} native histogram samples, which this store does not take (first: ${parsed.firstHistogram})`);
  }
  const rejected = result === undefined ? undefined : rejectionError(result, batch);
  const samples = result?.appended ?? 0;
  if (problems.length > 0) {
    if (rejected !== undefined) problems.push(rejected.message);
    return { samples, error: invalidArgument(`write of tenant ${JSON.stringify(parsed.tenant)} partly refused: ${problems.join('; ')}`) };
  }
  return rejected === undefined ? { samples } : { samples, error: rejected };
}
