/**
 * Small helpers over StoreClient for the suite: writes that must succeed,
 * Series calls that must succeed and obey the stream contract, and the
 * whole-time range Thanos Query asks for.
 */
import assert from 'node:assert/strict';
import { grpc, type SeriesRequest, type StoreClient } from './client.js';
import { seriesOf, warningsOf, type AnsweredSeries } from './series-check.js';
import { encodeWriteRequest, type WriteRequestInput } from './write-request.js';

/** The whole int64 range: what Thanos Query sends for "all time". */
export const ALL_TIME = { min_time: String(-(2n ** 63n)), max_time: String(2n ** 63n - 1n) } as const;

/** A base timestamp for test data: 2023-11-14T22:13:20Z. */
export const T0 = 1_700_000_000_000n;

export function codeName(code: number): string {
  return (grpc.status as unknown as Record<number, string>)[code] ?? String(code);
}

/** RemoteWrite that must answer OK. */
export async function write(client: StoreClient, input: WriteRequestInput): Promise<void> {
  const a = await client.remoteWrite(encodeWriteRequest(input));
  assert.equal(a.code, grpc.status.OK, `RemoteWrite answered ${codeName(a.code)}: ${a.details}`);
}

/** RemoteWrite expected to fail: returns the code and message. */
export async function writeFails(client: StoreClient, input: WriteRequestInput): Promise<{ code: number; details: string }> {
  const a = await client.remoteWrite(encodeWriteRequest(input));
  return { code: a.code, details: a.details };
}

/** Deadline of an ordinary Series call (the large ones pass their own). */
const SERIES_DEADLINE_MS = 10_000;

/** Whatever answers Series calls as StoreClient does: the client, or an in-process store (test/store/acceptance). */
export type SeriesCaller = Pick<StoreClient, 'series'>;

export interface SeriesResult {
  series: AnsweredSeries[];
  warnings: string[];
  frames: number;
}

/** A Series call that must end OK; its series checked against the stream contract. */
export async function seriesOk(client: SeriesCaller, request: SeriesRequest, deadlineMs?: number): Promise<SeriesResult> {
  const a = await client.series({ ...ALL_TIME, ...request }, { deadlineMs: deadlineMs ?? SERIES_DEADLINE_MS });
  assert.equal(a.code, grpc.status.OK, `Series answered ${codeName(a.code)}: ${a.details}`);
  return {
    series: seriesOf(a.frames, { skipChunks: request.skip_chunks === true }),
    warnings: warningsOf(a.frames),
    frames: a.frames.length,
  };
}

/** How long a Series call that should fail at once may take: errors are decided before any data is read. */
const ERROR_DEADLINE_MS = 5_000;

/** A Series call expected to fail with `code`; returns its message. */
export async function seriesFails(client: SeriesCaller, request: SeriesRequest, code: number): Promise<string> {
  const a = await client.series({ ...ALL_TIME, ...request }, { deadlineMs: ERROR_DEADLINE_MS });
  assert.equal(
    a.code,
    code,
    `Series answered ${codeName(a.code)} (${a.details || `${a.frames.length} frames`}), expected ${codeName(code)}`,
  );
  return a.details;
}
