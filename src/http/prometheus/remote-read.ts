/**
 * POST /api/v1/read: Prometheus remote read (WIRE.md). The body is a snappy
 * block of a prometheus.ReadRequest; every query is answered, scoped to the
 * request's tenant, with series as they were written.
 *
 * The answer type is the first of the client's accepted_response_types that
 * is served (SAMPLES when it lists none):
 * - SAMPLES: one snappy ReadResponse, planned here (read-samples.ts) and
 *   encoded in the worker pool (src/remote-read/samples-task.ts): float
 *   samples in `samples`, native histograms in `histograms`;
 * - STREAMED_XOR_CHUNKS: ChunkedReadResponse frames with the chunks as
 *   stored (read-chunked.ts), histogram chunks with their types 2 and 3,
 *   written as the socket takes them.
 * Everything that can fail with a status (body, matchers, limits) fails
 * before the first byte of the answer.
 */
import type { Logger } from 'pino';
import { uncompress } from 'snappy';
import { ReadRequest, ReadRequest_ResponseType } from '../../gen/prometheus/remote.js';
import type { CodecPool } from '../../pool/codec-pool.js';
import { readSamplesInPool } from '../../remote-read/samples-task.js';
import { checkSnappyBlock, snappyFailure } from '../../encoding/snappy-block.js';
import { encodeLabels } from '../../store/series-frames.js';
import { badRequest } from '../errors.js';
import type { Reply, RequestContext, ResponseSink, RouteSpec } from '../route.js';
import { asProblem } from './problems.js';
import { CHUNKED_CONTENT_TYPE, encodeChunkedFrames } from './read-chunked.js';
import { countSamples, planSamples } from './read-samples.js';
import { selectQuery, type QuerySelection } from './read-select.js';
import type { Readiness } from './readiness.js';
import { MAX_DECOMPRESSION_RATIO } from './remote-write.js';
import { TENANT_HEADER, tenantOf, type TenantScope, type DefaultTenantDeps } from './tenant.js';

export interface RemoteReadDeps extends DefaultTenantDeps {
  readiness: Readiness;
  pool: CodecPool;
  /** --tenant-label-name. */
  tenantLabel: string;
  /** --http-max-body-bytes. */
  maxBodyBytes: number;
  log: Logger;
}

/**
 * Most samples one SAMPLES answer may hold (Prometheus'
 * --storage.remote.read-sample-limit default): the answer is built whole in
 * memory, about 20 bytes a sample before compression. Streamed answers are
 * not limited: they are written frame by frame.
 */
export const READ_SAMPLE_LIMIT = 50_000_000;

/** Series framed per turn of the event loop while streaming. */
const SERIES_PER_SLICE = 256;

const SERVED = new Set<number>([ReadRequest_ResponseType.SAMPLES, ReadRequest_ResponseType.STREAMED_XOR_CHUNKS]);

/** The first accepted type that is served (WIRE.md: SAMPLES when none is listed). */
export function responseType(accepted: readonly number[]): ReadRequest_ResponseType {
  if (accepted.length === 0) return ReadRequest_ResponseType.SAMPLES;
  const served = accepted.find((t) => SERVED.has(t));
  if (served === undefined) {
    throw badRequest(`none of the accepted response types (${accepted.join(', ')}) is served; this server answers SAMPLES (0) and STREAMED_XOR_CHUNKS (1)`);
  }
  return served;
}

/** Decompresses (off the event loop, on libuv's threads) and decodes a ReadRequest body. */
async function decodeRequest(body: Uint8Array, maxDecodedBytes: number): Promise<ReadRequest> {
  try {
    checkSnappyBlock(body, maxDecodedBytes);
  } catch (err) {
    throw asProblem(err);
  }
  let raw: Uint8Array;
  try {
    raw = (await uncompress(body)) as Buffer;
  } catch (err) {
    throw asProblem(snappyFailure(err));
  }
  try {
    return ReadRequest.decode(raw);
  } catch (err) {
    throw badRequest(`the body is not a prometheus.ReadRequest: ${(err as Error).message}`);
  }
}

/** The POST /api/v1/read route. */
export function remoteReadRoute(deps: RemoteReadDeps): RouteSpec {
  const maxDecodedBytes = deps.maxBodyBytes * MAX_DECOMPRESSION_RATIO;

  async function handler(ctx: RequestContext): Promise<Reply> {
    deps.readiness.db(); // 503 before reading anything while not ready
    const request = await decodeRequest(ctx.body as Uint8Array, maxDecodedBytes);
    const type = responseType(request.acceptedResponseTypes);
    const scope: TenantScope = { label: deps.tenantLabel, tenant: tenantOf(ctx.headers[TENANT_HEADER], deps.defaultTenant) };
    // After the await: the engine may have closed meanwhile.
    const db = deps.readiness.db();
    let selections: QuerySelection[];
    try {
      selections = request.queries.map((q) => selectQuery(db, q, scope));
    } catch (err) {
      throw asProblem(err);
    }
    if (type === ReadRequest_ResponseType.STREAMED_XOR_CHUNKS) {
      return { status: 200, contentType: CHUNKED_CONTENT_TYPE, stream: (sink) => streamChunks(selections, sink) };
    }
    const samples = countSamples(selections);
    if (samples > READ_SAMPLE_LIMIT) {
      throw badRequest(`the queries select ${samples} samples, more than the ${READ_SAMPLE_LIMIT} a SAMPLES answer may hold; ask for STREAMED_XOR_CHUNKS or a narrower query`);
    }
    const body = await readSamplesInPool(deps.pool, planSamples(selections));
    return { status: 200, contentType: 'application/x-protobuf', headers: [['Content-Encoding', 'snappy']], body };
  }

  return {
    method: 'POST',
    path: '/api/v1/read',
    body: { kind: 'raw', limit: deps.maxBodyBytes, contentTypes: ['application/x-protobuf', ''] },
    headers: [TENANT_HEADER],
    handler,
  };
}

/** Writes every series of every query as frames, waiting for the socket between them. */
async function streamChunks(selections: readonly QuerySelection[], sink: ResponseSink): Promise<void> {
  let framed = 0;
  for (let q = 0; q < selections.length; q++) {
    for (const s of selections[q]!.series) {
      const frames: Buffer[] = [];
      encodeChunkedFrames(encodeLabels(s.labels), s.chunks, q, (f) => frames.push(f));
      for (const f of frames) await sink.write(f);
      if (sink.aborted) return;
      if (++framed % SERIES_PER_SLICE === 0) await new Promise((r) => setImmediate(r));
    }
  }
}
