/**
 * An OTLP body parsed straight into the append batch. Each translated
 * series goes through the remote-write series parser (its labels checked
 * as remote write's are), and a number point whose series the series
 * cache knows goes in by ref, its labels never made.
 *
 * Such a point is keyed by what makes its labels: the tenant, the
 * resource's and scope's labels with the settings that shape them, the
 * metric's name and the point's attribute bytes as sent. They are hashed
 * in the module (keyBytes: xxh64 with two seeds, a 128-bit key of which
 * the table keeps 96), chained from the series table's seeds
 * (series-table.ts) through the tenant and then the context, into the
 * same table as remote write's keys of label bytes. A key is learned only from a series the head took, as remote
 * write's are.
 */
import { WireReader } from '../../encoding/wire-reader.js';
import { metricTypeName, type MetricMetadataEntry } from '../../metadata/metric-metadata.js';
import { plainOtlpBody, translateOtlpBody, type OtlpBody } from '../../otlp/otlp-body.js';
import { encodeTimeSeries } from '../../otlp/time-series.js';
import type { NumberPoint } from '../../otlp/model.js';
import type { OutMetadata, OutSeries, SeriesSink } from '../../otlp/translated.js';
import type { HeadWasm } from '../../wasm/head.js';
import { STALE_NAN } from '../../wasm/layout.js';
import { probeRef } from '../series-table.js';
import { BatchParse, type RequestFacts } from './batch-parse.js';
import { DEFAULT_TENANT, tenantLabelOf, type ParsedWrite, type ParseWriteOptions } from './parsed-write.js';

const NO_BYTES = new Uint8Array(0);

const encoder = new TextEncoder();
const bits = new Float64Array(1);
const bitWords = new Int32Array(bits.buffer);
const TWO_32 = 4294967296;

// Module memory of PointKeys, in bytes from its start: three pairs of u64 seeds or keys, then the body.
const TENANT_SEEDS = 0;
const CONTEXT_SEEDS = 16;
const KEY = 32;
const BODY = 48;

/**
 * The seeds of each (context, family) per tenant, as made from the table's
 * seeds (`table`): an exporter sends the same resources and metrics every
 * time, and encoding and hashing them costs more than a lookup. Per thread;
 * emptied when it holds SEEDS_MAX.
 */
interface TenantSeeds {
  table: Int32Array;
  byContext: Map<string, Map<string, Int32Array>>;
}
const seedsByTenant = new Map<string, TenantSeeds>();
let seedsKept = 0;
const SEEDS_MAX = 65_536;

function tenantSeeds(tenant: string, table: Int32Array): TenantSeeds {
  let t = seedsByTenant.get(tenant);
  if (t === undefined || t.table.some((w, i) => w !== table[i + 1])) {
    t = { table: table.slice(1, 5), byContext: new Map() };
    seedsByTenant.set(tenant, t);
  }
  return t;
}

/**
 * What metadata this thread passed on lately, by tenant and family, and
 * when. An exporter repeats every metric's type, help and unit with every
 * export; the metadata store hears an unchanged entry again once a
 * minute (as remote write 1.0 sends it), a new or changed one at once.
 */
const sentMetadata = new Map<string, { type: string; help: string; unit: string; at: number }>();
const METADATA_RESEND_MS = 60_000;
const SENT_METADATA_MAX = 100_000;

function metadataToSend(tenant: string, family: string, type: string, help: string, unit: string, now: number): boolean {
  const key = `${tenant}\xff${family}`;
  const sent = sentMetadata.get(key);
  if (sent !== undefined && sent.type === type && sent.help === help && sent.unit === unit && now - sent.at < METADATA_RESEND_MS) return false;
  if (sent === undefined && sentMetadata.size >= SENT_METADATA_MAX) sentMetadata.clear();
  sentMetadata.set(key, { type, help, unit, at: now });
  return true;
}

/** The keys of a body's points, in this thread's module memory until free(). */
class PointKeys {
  private readonly ptr: number;
  private i32: Int32Array;
  private prefixPtr = 0;
  private prefixCap = 0;
  private context = '';
  private family = '';
  private readonly seeds: TenantSeeds;

  constructor(private readonly wasm: HeadWasm, body: Uint8Array, private readonly tenant: string, tenantKey: Uint8Array, private readonly table: Int32Array) {
    this.seeds = tenantSeeds(tenant, table);
    const w = wasm;
    this.ptr = w.alloc(BODY + body.length + tenantKey.length);
    const mem = new Uint8Array(w.memory.buffer);
    mem.set(body, this.ptr + BODY);
    mem.set(tenantKey, this.ptr + BODY + body.length);
    // The table's seeds (its header words 1..4: seed A low, high, seed B low, high).
    this.i32 = new Int32Array(w.memory.buffer);
    this.i32.set(table.subarray(1, 5), (this.ptr + TENANT_SEEDS) >>> 2);
    w.keyBytes(this.ptr + BODY + body.length, tenantKey.length, this.ptr + TENANT_SEEDS, this.ptr + TENANT_SEEDS);
  }

  private words(): Int32Array {
    if (this.i32.length === 0) this.i32 = new Int32Array(this.wasm.memory.buffer);
    return this.i32;
  }

  /**
   * Keys the number points of `context` and `family` whose attribute
   * fields are bytes of the body and that have no exemplars (four int32
   * words each in `keys` from 4 * i), and looks them all up in the table,
   * in one tight loop after the hashing, so that the table's cache misses
   * overlap: `refs[i]` the series ref, 0 when none (or not keyed).
   */
  lookup(context: string, family: string, points: readonly NumberPoint[], keys: Int32Array, refs: Uint32Array): void {
    const w = this.wasm;
    if (context !== this.context || family !== this.family) {
      this.useSeeds(context, family);
      this.context = context;
      this.family = family;
    }
    const n = points.length;
    const body = this.ptr + BODY;
    const seeds = this.ptr + CONTEXT_SEEDS;
    const out = this.ptr + KEY;
    const k = out >>> 2;
    for (let i = 0; i < n; i++) {
      const p = points[i]!;
      if (p.attributesAt === undefined || p.exemplars.length > 0) {
        keys.fill(0, 4 * i, 4 * i + 4);
        refs[i] = 0;
        continue;
      }
      w.keyBytes(body + p.attributesAt, p.attributesEnd! - p.attributesAt, seeds, out);
      const m = this.words();
      keys[4 * i] = m[k]!;
      keys[4 * i + 1] = m[k + 1]!;
      keys[4 * i + 2] = m[k + 2]!;
      keys[4 * i + 3] = m[k + 3]!;
      refs[i] = 1;
    }
    const table = this.table;
    for (let i = 0; i < n; i++) {
      if (refs[i] !== 0) refs[i] = probeRef(table, keys[4 * i]!, keys[4 * i + 1]!, keys[4 * i + 2]!);
    }
  }

  /** Puts the seeds of (context, family) at CONTEXT_SEEDS: kept ones, else made (and kept). */
  private useSeeds(context: string, family: string): void {
    const w = this.wasm;
    const at = (this.ptr + CONTEXT_SEEDS) >>> 2;
    let byFamily = this.seeds.byContext.get(context);
    const kept = byFamily?.get(family);
    if (kept !== undefined) {
      this.words().set(kept, at);
      return;
    }
    const prefix = encoder.encode(`${context}\u0000${family}`);
    if (prefix.length > this.prefixCap) {
      if (this.prefixPtr !== 0) w.free(this.prefixPtr);
      this.prefixCap = Math.max(256, prefix.length * 2);
      this.prefixPtr = w.alloc(this.prefixCap);
    }
    new Uint8Array(w.memory.buffer).set(prefix, this.prefixPtr);
    w.keyBytes(this.prefixPtr, prefix.length, this.ptr + TENANT_SEEDS, this.ptr + CONTEXT_SEEDS);
    if (seedsKept >= SEEDS_MAX) {
      seedsByTenant.clear();
      this.seeds.byContext.clear();
      seedsByTenant.set(this.tenant, this.seeds);
      seedsKept = 0;
      byFamily = undefined;
    }
    if (byFamily === undefined) {
      byFamily = new Map();
      this.seeds.byContext.set(context, byFamily);
    }
    byFamily.set(family, this.words().slice(at, at + 4));
    seedsKept++;
  }

  free(): void {
    if (this.prefixPtr !== 0) this.wasm.free(this.prefixPtr);
    this.wasm.free(this.ptr);
  }
}

/** The translation's sink: known points by ref, the other series through the series parser. */
class BatchSink implements SeriesSink {
  /** Series made, valid or not (ParsedWrite.series). */
  count = 0;
  metadataEntries: MetricMetadataEntry[] | undefined;
  keys: PointKeys | undefined;
  private readonly now = Date.now();
  /** The last lookup's keys (four words a point) and refs. */
  private pointKeys = new Int32Array(4 * 256);
  private refs = new Uint32Array(256);

  constructor(
    private readonly parse: BatchParse,
    private readonly plain: Uint8Array,
    private readonly table: Int32Array | undefined,
    private readonly wasm: HeadWasm,
    private readonly tenant: string,
  ) {}

  lookup(context: string, family: string, points: readonly NumberPoint[]): Uint32Array {
    const n = points.length;
    if (this.refs.length < n) {
      this.refs = new Uint32Array(n * 2);
      this.pointKeys = new Int32Array(n * 8);
    }
    const refs = this.refs.subarray(0, n);
    if (this.table === undefined) {
      refs.fill(0);
      return refs;
    }
    this.keys ??= new PointKeys(this.wasm, this.plain, this.tenant, this.parse.parser.tenantKey, this.table);
    this.keys.lookup(context, family, points, this.pointKeys, refs);
    return refs;
  }

  knownSample(ref: number, t: number, value: number, stale: boolean): void {
    let vLo: number;
    let vHi: number;
    if (stale) {
      vLo = STALE_NAN.lo;
      vHi = STALE_NAN.hi;
    } else {
      bits[0] = value;
      vLo = bitWords[0]!;
      vHi = bitWords[1]!;
    }
    this.parse.parser.knownSample(ref, t % TWO_32 | 0, Math.floor(t / TWO_32) | 0, vLo, vHi);
    this.count++;
  }

  series(s: OutSeries): void {
    const bytes = encodeTimeSeries(s);
    const parse = this.parse;
    parse.parser.readFrom(new WireReader(bytes));
    const samples = parse.builders.samples;
    const entry = samples.n;
    parse.parser.series(bytes.length, this.count++);
    // A point the last lookup keyed (a ticket) and the head may now take: learned once appended.
    if (s.ticket === undefined || samples.n === entry) return;
    const key = this.pointKeys.subarray(4 * (s.ticket - 1), 4 * s.ticket);
    // All zero: a point lookup() did not key.
    if (key[0] === 0 && key[1] === 0 && key[2] === 0 && key[3] === 0) return;
    parse.keyWords.set(key, parse.learn(entry));
  }

  metadata(m: OutMetadata): void {
    const type = metricTypeName(m.type);
    if (!metadataToSend(this.tenant, m.family, type, m.help, m.unit, this.now)) return;
    (this.metadataEntries ??= []).push({ family: m.family, type, help: m.help, unit: m.unit });
  }
}

/**
 * Parses an OTLP/HTTP metrics body (src/otlp: gunzipped, decoded and
 * translated as Prometheus 3 does) into an append batch, as
 * parseWriteRequest parses a remote-write request: the tenant from
 * `opts.tenant` (else `opts.defaultTenant`), the series' labels checked as
 * remote write's, known series by ref through `cache`. ParsedWrite.otlp
 * says what the translation refused.
 *
 * @throws MalformedRequestError for a body that does not decode.
 * @throws OtlpTooLargeError for a gzip body past `body.maxDecodedBytes`.
 * @throws RangeError for an empty `opts.tenantLabel`.
 */
export function parseOtlpRequest(bytes: Uint8Array, body: OtlpBody, opts: ParseWriteOptions, wasm: HeadWasm, cache?: SharedArrayBuffer, spare?: ArrayBuffer): ParsedWrite {
  return parsePlainOtlp(plainOtlpBody(bytes, body), body, opts, wasm, cache, spare);
}

/** parseOtlpRequest for a body already gunzipped (plainOtlpBody). */
export function parsePlainOtlp(
  plain: Uint8Array, body: OtlpBody, opts: ParseWriteOptions, wasm: HeadWasm, cache?: SharedArrayBuffer, spare?: ArrayBuffer, histogramSpare?: ArrayBuffer,
): ParsedWrite {
  const tenantLabel = tenantLabelOf(opts);
  const tenant = opts.tenant !== undefined && opts.tenant !== '' ? opts.tenant : opts.defaultTenant ?? DEFAULT_TENANT;
  // Each series is read from its own bytes (BatchSink.series): the parser's reader starts empty.
  const parse = new BatchParse(wasm, new WireReader(NO_BYTES), tenantLabel, tenant);
  const sink = new BatchSink(parse, plain, cache === undefined ? undefined : new Int32Array(cache), wasm, tenant);
  try {
    const refused = translateOtlpBody(plain, body, sink);
    const facts: RequestFacts = { tenant, replica: 0, series: sink.count };
    if (sink.metadataEntries !== undefined) facts.metadata = sink.metadataEntries;
    const parsed = parse.finish(spare, facts, histogramSpare);
    parsed.otlp = refused;
    return parsed;
  } finally {
    parse.release();
    sink.keys?.free();
  }
}
