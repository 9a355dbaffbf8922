import type { HeadWasm } from '../../wasm/head.js';
import type { MetricMetadataEntry } from '../../metadata/metric-metadata.js';
import { DEFAULT_TENANT, tenantLabelOf, type ParsedWrite, type ParseWriteOptions } from './parsed-write.js';
import { badParseOption, malformedRequest } from '../../errors/errors.js';
import { METRIC_METADATA, checkMessage } from './message-shapes.js';
import { readMetricMetadata } from './metadata-reader.js';
import { parseWriteRequestV2 } from './parse-write-v2.js';
import { BatchParse, type RequestFacts } from './batch-parse.js';
import { RequestKeys } from '../series-keys.js';
import { invalidUtf8At } from '../../encoding/utf8.js';
import { WIRE, WireReader, wrongWireType } from '../../encoding/wire-reader.js';

export { DEFAULT_TENANT, DEFAULT_TENANT_LABEL, type ParsedWrite, type ParseWriteOptions } from './parsed-write.js';
export { KEY_RECORD_WORDS } from './batch-parse.js';

// Top-level tags (field << 3 | wire type).
const TIMESERIES = (1 << 3) | WIRE.len;
const THANOS_TENANT = (2 << 3) | WIRE.len;
const THANOS_REPLICA = (3 << 3) | WIRE.varint;
const PROMETHEUS_METADATA = (3 << 3) | WIRE.len;

const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** The top-level fields, read before any series because tenant may follow the series. */
interface RequestHead {
  series: number;
  tenantAt: number;
  tenantLen: number;
  replica: number;
}

function readHead(r: WireReader, dialect: ParseWriteOptions['dialect']): RequestHead {
  const end = r.buf.length;
  const head: RequestHead = { series: 0, tenantAt: 0, tenantLen: 0, replica: 0 };
  const thanos = dialect === 'thanos';
  r.pos = 0;
  while (r.pos < end) {
    const at = r.pos;
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (tag === TIMESERIES) {
      r.pos = r.len(end);
      head.series++;
    } else if (thanos && tag === THANOS_TENANT) {
      const stop = r.len(end);
      head.tenantAt = r.pos;
      head.tenantLen = stop - r.pos;
      r.pos = stop;
    } else if (thanos && tag === THANOS_REPLICA) {
      head.replica = r.int64Number(end);
    } else if (!thanos && tag === PROMETHEUS_METADATA) {
      checkMessage(r, r.len(end), METRIC_METADATA);
    } else if (field === 1 || (thanos && field === 2) || field === 3) {
      const want = thanos && field === 3 ? WIRE.varint : WIRE.len;
      throw wrongWireType(at, 'WriteRequest', field, tag & 7, want);
    } else {
      r.skip(tag & 7, end);
    }
  }
  return head;
}

function tenantOf(r: WireReader, head: RequestHead, fromOutside: string | undefined, fallback: string): string {
  if (fromOutside !== undefined && fromOutside !== '') return fromOutside;
  if (head.tenantLen === 0) return fallback;
  const bad = invalidUtf8At(r.buf, head.tenantAt, head.tenantAt + head.tenantLen);
  if (bad >= 0) throw malformedRequest(bad, 'tenant is not valid UTF-8');
  return strictDecoder.decode(r.buf.subarray(head.tenantAt, head.tenantAt + head.tenantLen));
}

/**
 * The tenant a thanos.WriteRequest names (its field 2), `fallback`
 * when it names none or the bytes are not a valid message. A walk over
 * the top-level fields only, for naming the tenant of a write refused
 * before it is parsed (a refusal's metrics); not for the write path.
 */
export function writeRequestTenant(bytes: Uint8Array, fallback: string = DEFAULT_TENANT): string {
  const r = new WireReader(bytes);
  try {
    return tenantOf(r, readHead(r, 'thanos'), undefined, fallback);
  } catch {
    // Not a valid message: the parse that follows refuses it.
    return fallback;
  }
}

/**
 * Parses a remote-write request from its protobuf bytes straight into an
 * append batch: no message objects, no per-sample JS values. Label sets are
 * checked as Thanos Receive checks them (no labels, empty name or value,
 * duplicate or unsorted names, and valid UTF-8); a series that fails is
 * counted and left out, the rest still counts. Fields may come in any
 * order, unknown fields are skipped, and a scalar given twice takes the
 * last value, as protobuf says.
 *
 * Synchronous and CPU-bound: call it in a pool worker (parseWriteInPool),
 * not on the event loop. `bytes` is only read, and not kept.
 *
 * @throws MalformedRequestError (with the byte offset) when the bytes are
 *   not a valid message: truncated, a bad varint, a length past its
 *   message, a group or invalid wire type, a known field with the wrong
 *   wire type, or a tenant field that is not UTF-8.
 * @example
 * const parsed = parseWriteRequest(body, { dialect: 'thanos' }, wasm);
 * const result = db.append(parsed.batch);
 * if (parsed.invalidSeries > 0) throw invalidArgument(parsed.firstInvalid);
 */
export function parseWriteRequest(
  bytes: Uint8Array, opts: ParseWriteOptions, wasm: HeadWasm, cache?: SharedArrayBuffer, spare?: ArrayBuffer, histogramSpare?: ArrayBuffer,
): ParsedWrite {
  const tenantLabel = tenantLabelOf(opts);
  if (opts.dialect === 'prometheus-v2') return parseWriteRequestV2(bytes, { ...opts, tenantLabel }, wasm);
  if (opts.dialect !== 'thanos' && opts.dialect !== 'prometheus') throw badParseOption(`unknown dialect ${JSON.stringify(opts.dialect)}`);
  const r = new WireReader(bytes);
  const head = readHead(r, opts.dialect);
  const tenant = tenantOf(r, head, opts.tenant, opts.defaultTenant ?? DEFAULT_TENANT);

  const parse = new BatchParse(wasm, r, tenantLabel, tenant);
  const parser = parse.parser;
  let metadata: MetricMetadataEntry[] | undefined;
  let keys: RequestKeys | undefined;
  try {
    if (cache !== undefined && head.series > 0) keys = RequestKeys.of(wasm, bytes, head.series, parser.tenantKey, new Int32Array(cache));
    // Second walk over the top level: the first one checked it, so only
    // series (and 1.0's metadata) need reading now.
    const end = bytes.length;
    const prometheus = opts.dialect === 'prometheus';
    const { samples, histograms } = parse.builders;
    r.pos = 0;
    let index = 0;
    while (r.pos < end) {
      const tag = r.tag(end);
      if (tag === TIMESERIES) {
        const stop = r.len(end);
        if (keys === undefined || !keys.keyed(index)) {
          parser.series(stop, index);
        } else {
          const ref = keys.ref(index);
          if (ref !== 0) {
            parser.knownSeries(r.pos, keys.labelsEnd(index), stop, ref, index);
          } else {
            const entry = samples.n;
            const hEntry = histograms.n;
            parser.series(stop, index);
            // Learned from its float entry, else from its histogram entry (learnHistogram).
            if (samples.n > entry) keys.copyKey(index, parse.keyWords, parse.learn(entry));
            else if (histograms.n > hEntry) keys.copyKey(index, parse.keyWords, parse.learnHistogram(hEntry));
          }
        }
        index++;
        r.pos = stop;
      } else if (prometheus && tag === PROMETHEUS_METADATA) {
        const entry = readMetricMetadata(r, r.len(end));
        if (entry !== undefined) (metadata ??= []).push(entry);
      } else {
        r.skip(tag & 7, end);
      }
    }
    const facts: RequestFacts = { tenant, replica: head.replica, series: head.series };
    if (metadata !== undefined) facts.metadata = metadata;
    return parse.finish(spare, facts, histogramSpare);
  } finally {
    // Malformed requests too: a stream of them must not allocate builders each time.
    parse.release();
    keys?.free();
  }
}
