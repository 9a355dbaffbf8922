// Pins the wire contract in proto/ to the facts real clients depend on:
// method paths, field numbers and types, enum values. The .proto files are
// loaded with @grpc/proto-loader (not the generated code) so this guards the
// specification itself; the round-trip tests then use the ts-proto output.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadSync } from "@grpc/proto-loader";
import { WriteRequest as PromWriteRequest } from "../../src/gen/prometheus/remote.js";
import { WriteRequest as ThanosWriteRequest } from "../../src/gen/thanos/store/rpc.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const defs = loadSync(
  ["thanos/store/rpc.proto", "thanos/store/hints.proto", "thanos/info/rpc.proto", "prometheus/remote.proto"],
  { includeDirs: [join(root, "proto"), join(root, "node_modules", "protoc", "include")], keepCase: true },
);

interface FieldDescriptor {
  name: string;
  number: number;
  label: string;
  type: string;
  typeName: string;
}
interface EnumDescriptor {
  name: string;
  value: { name: string; number: number }[];
}
interface MessageDescriptor {
  field: FieldDescriptor[];
  enumType: EnumDescriptor[];
  reservedRange: { start: number; end: number }[];
}

function message(fullName: string): MessageDescriptor {
  const def = defs[fullName] as { format?: string; type?: MessageDescriptor } | undefined;
  const type = def?.format === "Protocol Buffer 3 DescriptorProto" ? def.type : undefined;
  assert.ok(type, `${fullName} is not a message`);
  return type;
}

/**
 * A message's fields as `name: "number [repeated ]type"`, where type is the
 * scalar type (`int64`) or the message/enum's short name (`Label`).
 */
function shape(fullName: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of message(fullName).field) {
    const type = f.typeName ? (f.typeName.split(".").pop() ?? "") : f.type.replace("TYPE_", "").toLowerCase();
    out[f.name] = `${f.number} ${f.label === "LABEL_REPEATED" ? "repeated " : ""}${type}`;
  }
  return out;
}

/** An enum's values; `pkg.Msg.Enum` looks inside the message. */
function enumValues(fullName: string): Record<string, number> {
  const top = defs[fullName] as { format?: string; type?: { value: EnumDescriptor["value"] } } | undefined;
  let values = top?.format?.includes("EnumDescriptorProto") ? top.type?.value : undefined;
  if (!values) {
    const cut = fullName.lastIndexOf(".");
    values = message(fullName.slice(0, cut)).enumType.find((e) => e.name === fullName.slice(cut + 1))?.value;
  }
  assert.ok(values, `${fullName} is not an enum`);
  return Object.fromEntries(values.map((v) => [v.name, v.number]));
}

function reserved(fullName: string): number[] {
  return message(fullName).reservedRange.flatMap((r) => {
    const nums: number[] = [];
    for (let n = r.start; n <= r.end; n++) nums.push(n); // protobufjs: end inclusive
    return nums;
  });
}

interface MethodDescriptor {
  path: string;
  requestStream: boolean;
  responseStream: boolean;
  requestType: { type: { name: string } };
  responseType: { type: { name: string } };
}

function method(service: string, name: string): MethodDescriptor {
  const svc = defs[service] as Record<string, MethodDescriptor> | undefined;
  const m = svc?.[name];
  assert.ok(m, `${service}/${name} is not defined`);
  return m;
}

describe("gRPC method paths", () => {
  const cases: [service: string, name: string, request: string, response: string, serverStream: boolean][] = [
    ["thanos.Store", "Info", "InfoRequest", "InfoResponse", false],
    ["thanos.Store", "Series", "SeriesRequest", "SeriesResponse", true],
    ["thanos.Store", "LabelNames", "LabelNamesRequest", "LabelNamesResponse", false],
    ["thanos.Store", "LabelValues", "LabelValuesRequest", "LabelValuesResponse", false],
    ["thanos.WriteableStore", "RemoteWrite", "WriteRequest", "WriteResponse", false],
    ["thanos.info.Info", "Info", "InfoRequest", "InfoResponse", false],
  ];
  for (const [service, name, request, response, serverStream] of cases) {
    test(`serves /${service}/${name}${serverStream ? " as a server stream" : " as unary"}`, () => {
      const m = method(service, name);
      assert.equal(m.path, `/${service}/${name}`);
      assert.equal(m.requestStream, false);
      assert.equal(m.responseStream, serverStream);
      assert.equal(m.requestType.type.name, request);
      assert.equal(m.responseType.type.name, response);
    });
  }

  test("each service has exactly the listed methods", () => {
    assert.deepEqual(Object.keys(defs["thanos.Store"] ?? {}).sort(), ["Info", "LabelNames", "LabelValues", "Series"]);
    assert.deepEqual(Object.keys(defs["thanos.WriteableStore"] ?? {}), ["RemoteWrite"]);
    assert.deepEqual(Object.keys(defs["thanos.info.Info"] ?? {}), ["Info"]);
  });
});

describe("Store API messages (package thanos)", () => {
  test("Label, ZLabelSet and LabelSet", () => {
    assert.deepEqual(shape("thanos.Label"), { name: "1 string", value: "2 string" });
    assert.deepEqual(shape("thanos.ZLabelSet"), { labels: "1 repeated Label" });
    assert.deepEqual(shape("thanos.LabelSet"), { labels: "1 repeated Label" });
  });

  test("LabelMatcher with Type EQ 0, NEQ 1, RE 2, NRE 3", () => {
    assert.deepEqual(shape("thanos.LabelMatcher"), { type: "1 Type", name: "2 string", value: "3 string" });
    assert.deepEqual(enumValues("thanos.LabelMatcher.Type"), { EQ: 0, NEQ: 1, RE: 2, NRE: 3 });
  });

  test("Series, AggrChunk and Chunk with Thanos' own encoding numbers", () => {
    assert.deepEqual(shape("thanos.Series"), { labels: "1 repeated Label", chunks: "2 repeated AggrChunk" });
    assert.deepEqual(shape("thanos.AggrChunk"), {
      min_time: "1 int64",
      max_time: "2 int64",
      raw: "3 Chunk",
      count: "4 Chunk",
      sum: "5 Chunk",
      min: "6 Chunk",
      max: "7 Chunk",
      counter: "8 Chunk",
    });
    assert.deepEqual(shape("thanos.Chunk"), { type: "1 Encoding", data: "2 bytes", hash: "3 uint64" });
    assert.deepEqual(enumValues("thanos.Chunk.Encoding"), { XOR: 0, HISTOGRAM: 1, FLOAT_HISTOGRAM: 2 });
  });

  test("PartialResponseStrategy, StoreType and Aggr", () => {
    assert.deepEqual(enumValues("thanos.PartialResponseStrategy"), { WARN: 0, ABORT: 1 });
    assert.deepEqual(enumValues("thanos.StoreType"), {
      UNKNOWN: 0, QUERY: 1, RULE: 2, SIDECAR: 3, STORE: 4, RECEIVE: 5, DEBUG: 6,
    });
    assert.deepEqual(enumValues("thanos.Aggr"), { RAW: 0, COUNT: 1, SUM: 2, MIN: 3, MAX: 4, COUNTER: 5 });
  });

  test("WriteRequest carries timeseries 1, tenant 2, replica 3", () => {
    assert.deepEqual(shape("thanos.WriteRequest"), {
      timeseries: "1 repeated TimeSeries",
      tenant: "2 string",
      replica: "3 int64",
    });
    assert.deepEqual(shape("thanos.WriteResponse"), {});
  });

  test("Store.Info's InfoResponse (deprecated API)", () => {
    assert.deepEqual(shape("thanos.InfoResponse"), {
      labels: "1 repeated Label",
      min_time: "2 int64",
      max_time: "3 int64",
      storeType: "4 StoreType",
      label_sets: "5 repeated ZLabelSet",
    });
  });

  test("SeriesRequest and its hints, sharding and limit fields", () => {
    assert.deepEqual(shape("thanos.SeriesRequest"), {
      min_time: "1 int64",
      max_time: "2 int64",
      matchers: "3 repeated LabelMatcher",
      max_resolution_window: "4 int64",
      aggregates: "5 repeated Aggr",
      partial_response_disabled: "6 bool",
      partial_response_strategy: "7 PartialResponseStrategy",
      skip_chunks: "8 bool",
      hints: "9 Any",
      step: "10 int64",
      range: "11 int64",
      query_hints: "12 QueryHints",
      shard_info: "13 ShardInfo",
      without_replica_labels: "14 repeated string",
      limit: "15 int64",
    });
    assert.deepEqual(shape("thanos.QueryHints"), {
      step_millis: "1 int64",
      func: "2 Func",
      grouping: "4 Grouping",
      range: "5 Range",
    });
    assert.deepEqual(shape("thanos.Func"), { name: "1 string" });
    assert.deepEqual(shape("thanos.Grouping"), { by: "1 bool", labels: "3 repeated string" });
    assert.deepEqual(shape("thanos.Range"), { millis: "1 int64" });
    assert.deepEqual(shape("thanos.ShardInfo"), {
      shard_index: "1 int64",
      total_shards: "2 int64",
      by: "3 bool",
      labels: "4 repeated string",
    });
  });

  test("SeriesResponse is a oneof of series 1, warning 2, hints 3", () => {
    assert.deepEqual(shape("thanos.SeriesResponse"), { series: "1 Series", warning: "2 string", hints: "3 Any" });
  });

  test("LabelNames and LabelValues requests and responses", () => {
    assert.deepEqual(shape("thanos.LabelNamesRequest"), {
      partial_response_disabled: "1 bool",
      partial_response_strategy: "2 PartialResponseStrategy",
      start: "3 int64",
      end: "4 int64",
      hints: "5 Any",
      matchers: "6 repeated LabelMatcher",
      without_replica_labels: "7 repeated string",
      limit: "8 int64",
    });
    assert.deepEqual(shape("thanos.LabelNamesResponse"), {
      names: "1 repeated string",
      warnings: "2 repeated string",
      hints: "3 Any",
    });
    assert.deepEqual(shape("thanos.LabelValuesRequest"), {
      label: "1 string",
      partial_response_disabled: "2 bool",
      partial_response_strategy: "3 PartialResponseStrategy",
      start: "4 int64",
      end: "5 int64",
      hints: "6 Any",
      matchers: "7 repeated LabelMatcher",
      without_replica_labels: "8 repeated string",
      limit: "9 int64",
    });
    assert.deepEqual(shape("thanos.LabelValuesResponse"), {
      values: "1 repeated string",
      warnings: "2 repeated string",
      hints: "3 Any",
    });
  });

  test("hintspb request hints carry block_matchers at 1", () => {
    for (const name of ["SeriesRequestHints", "LabelNamesRequestHints", "LabelValuesRequestHints"]) {
      assert.equal(shape(`hintspb.${name}`).block_matchers, "1 repeated LabelMatcher", name);
    }
    assert.deepEqual(shape("hintspb.SeriesResponseHints"), {
      queried_blocks: "1 repeated Block",
      query_stats: "2 QueryStats",
    });
  });
});

describe("info service (package thanos.info)", () => {
  test("InfoRequest is empty", () => {
    assert.deepEqual(shape("thanos.info.InfoRequest"), {});
  });

  test("InfoResponse fields 1 to 8", () => {
    assert.deepEqual(shape("thanos.info.InfoResponse"), {
      label_sets: "1 repeated ZLabelSet",
      ComponentType: "2 string",
      store: "3 StoreInfo",
      rules: "4 RulesInfo",
      metric_metadata: "5 MetricMetadataInfo",
      targets: "6 TargetsInfo",
      exemplars: "7 ExemplarsInfo",
      query: "8 QueryAPIInfo",
    });
  });

  test("StoreInfo keeps field 4 reserved", () => {
    assert.deepEqual(shape("thanos.info.StoreInfo"), {
      min_time: "1 int64",
      max_time: "2 int64",
      supports_sharding: "3 bool",
      supports_without_replica_labels: "5 bool",
      tsdb_infos: "6 repeated TSDBInfo",
    });
    assert.deepEqual(reserved("thanos.info.StoreInfo"), [4]);
    assert.deepEqual(shape("thanos.info.TSDBInfo"), { labels: "1 ZLabelSet", min_time: "2 int64", max_time: "3 int64" });
    assert.deepEqual(shape("thanos.info.ExemplarsInfo"), { min_time: "1 int64", max_time: "2 int64" });
  });
});

describe("remote-write types (prometheus_copy and prometheus: same bytes)", () => {
  for (const pkg of ["prometheus_copy", "prometheus"]) {
    test(`${pkg}: TimeSeries, Sample, Exemplar`, () => {
      assert.deepEqual(shape(`${pkg}.TimeSeries`), {
        labels: "1 repeated Label",
        samples: "2 repeated Sample",
        exemplars: "3 repeated Exemplar",
        histograms: "4 repeated Histogram",
      });
      assert.deepEqual(shape(`${pkg}.Sample`), { value: "1 double", timestamp: "2 int64" });
      assert.deepEqual(shape(`${pkg}.Exemplar`), { labels: "1 repeated Label", value: "2 double", timestamp: "3 int64" });
    });

    test(`${pkg}: native Histogram and BucketSpan`, () => {
      assert.deepEqual(shape(`${pkg}.Histogram`), {
        count_int: "1 uint64",
        count_float: "2 double",
        sum: "3 double",
        schema: "4 sint32",
        zero_threshold: "5 double",
        zero_count_int: "6 uint64",
        zero_count_float: "7 double",
        negative_spans: "8 repeated BucketSpan",
        negative_deltas: "9 repeated sint64",
        negative_counts: "10 repeated double",
        positive_spans: "11 repeated BucketSpan",
        positive_deltas: "12 repeated sint64",
        positive_counts: "13 repeated double",
        reset_hint: "14 ResetHint",
        timestamp: "15 int64",
        custom_values: "16 repeated double",
      });
      assert.deepEqual(enumValues(`${pkg}.Histogram.ResetHint`), { UNKNOWN: 0, YES: 1, NO: 2, GAUGE: 3 });
      assert.deepEqual(shape(`${pkg}.BucketSpan`), { offset: "1 sint32", length: "2 uint32" });
    });

    test(`${pkg}: MetricMetadata, LabelMatcher, ReadHints, Chunk, ChunkedSeries`, () => {
      assert.deepEqual(shape(`${pkg}.MetricMetadata`), {
        type: "1 MetricType",
        metric_family_name: "2 string",
        help: "4 string",
        unit: "5 string",
      });
      assert.deepEqual(enumValues(`${pkg}.MetricMetadata.MetricType`), {
        UNKNOWN: 0, COUNTER: 1, GAUGE: 2, HISTOGRAM: 3, GAUGEHISTOGRAM: 4, SUMMARY: 5, INFO: 6, STATESET: 7,
      });
      assert.deepEqual(shape(`${pkg}.LabelMatcher`), { type: "1 Type", name: "2 string", value: "3 string" });
      assert.deepEqual(enumValues(`${pkg}.LabelMatcher.Type`), { EQ: 0, NEQ: 1, RE: 2, NRE: 3 });
      assert.deepEqual(shape(`${pkg}.ReadHints`), {
        step_ms: "1 int64",
        func: "2 string",
        start_ms: "3 int64",
        end_ms: "4 int64",
        grouping: "5 repeated string",
        by: "6 bool",
        range_ms: "7 int64",
      });
      assert.deepEqual(shape(`${pkg}.Chunk`), {
        min_time_ms: "1 int64",
        max_time_ms: "2 int64",
        type: "3 Encoding",
        data: "4 bytes",
      });
      assert.deepEqual(enumValues(`${pkg}.Chunk.Encoding`), { UNKNOWN: 0, XOR: 1, HISTOGRAM: 2, FLOAT_HISTOGRAM: 3 });
      assert.deepEqual(shape(`${pkg}.ChunkedSeries`), { labels: "1 repeated Label", chunks: "2 repeated Chunk" });
    });
  }

  test("prometheus: Label and Labels", () => {
    assert.deepEqual(shape("prometheus.Label"), { name: "1 string", value: "2 string" });
    assert.deepEqual(shape("prometheus.Labels"), { labels: "1 repeated Label" });
  });
});

describe("Prometheus remote write and read (package prometheus)", () => {
  test("WriteRequest: timeseries 1, field 2 reserved, metadata 3", () => {
    assert.deepEqual(shape("prometheus.WriteRequest"), {
      timeseries: "1 repeated TimeSeries",
      metadata: "3 repeated MetricMetadata",
    });
    assert.deepEqual(reserved("prometheus.WriteRequest"), [2]);
  });

  test("ReadRequest with ResponseType SAMPLES 0, STREAMED_XOR_CHUNKS 1", () => {
    assert.deepEqual(shape("prometheus.ReadRequest"), {
      queries: "1 repeated Query",
      accepted_response_types: "2 repeated ResponseType",
    });
    assert.deepEqual(enumValues("prometheus.ReadRequest.ResponseType"), { SAMPLES: 0, STREAMED_XOR_CHUNKS: 1 });
  });

  test("Query, ReadResponse, QueryResult, ChunkedReadResponse", () => {
    assert.deepEqual(shape("prometheus.Query"), {
      start_timestamp_ms: "1 int64",
      end_timestamp_ms: "2 int64",
      matchers: "3 repeated LabelMatcher",
      hints: "4 ReadHints",
    });
    assert.deepEqual(shape("prometheus.ReadResponse"), { results: "1 repeated QueryResult" });
    assert.deepEqual(shape("prometheus.QueryResult"), { timeseries: "1 repeated TimeSeries" });
    assert.deepEqual(shape("prometheus.ChunkedReadResponse"), {
      chunked_series: "1 repeated ChunkedSeries",
      query_index: "2 int64",
    });
  });
});

/** Prometheus' stale marker: a signalling NaN recognised only by its bits. */
const STALE_BITS = 0x7ff0000000000002n;

function floatFromBits(bits: bigint): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, bits, true);
  return view.getFloat64(0, true);
}

function bitsOf(value: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value, true);
  return view.getBigUint64(0, true);
}

function hex(bits: bigint): string {
  return `0x${bits.toString(16).padStart(16, "0")}`;
}

describe("generated code round trip (ts-proto)", () => {
  const series = {
    labels: [
      { name: "__name__", value: "up" },
      { name: "job", value: "node" },
    ],
    samples: [
      { value: floatFromBits(STALE_BITS), timestamp: 1_700_000_000_000n },
      { value: 1.5, timestamp: 1_700_000_015_000n },
      { value: Number.NaN, timestamp: -1n }, // before the epoch: int64 is signed
    ],
    exemplars: [{ labels: [{ name: "trace_id", value: "abc" }], value: 2.5, timestamp: 1_700_000_000_001n }],
  };

  test("a thanos.WriteRequest decodes as a prometheus.WriteRequest", () => {
    const bytes = ThanosWriteRequest.encode(
      ThanosWriteRequest.create({ timeseries: [series], tenant: "", replica: 0n }),
    ).finish();
    const got = PromWriteRequest.decode(bytes);

    assert.equal(got.timeseries.length, 1);
    const ts = got.timeseries[0];
    assert.ok(ts);
    assert.deepEqual(ts.labels, series.labels);
    assert.deepEqual(
      ts.samples.map((s) => s.timestamp),
      [1_700_000_000_000n, 1_700_000_015_000n, -1n],
    );
    assert.equal(ts.samples[1]?.value, 1.5);
    assert.ok(Number.isNaN(ts.samples[0]?.value));
    assert.ok(Number.isNaN(ts.samples[2]?.value));
    assert.deepEqual(ts.exemplars, series.exemplars);
    assert.deepEqual(ts.histograms, []);
    assert.deepEqual(got.metadata, []);
  });

  test("prometheus.WriteRequest skips thanos' tenant and replica (replica is a varint at metadata's number)", () => {
    const bytes = ThanosWriteRequest.encode(
      ThanosWriteRequest.create({ timeseries: [series], tenant: "team-a", replica: 2n }),
    ).finish();
    const got = PromWriteRequest.decode(bytes);
    assert.equal(got.timeseries.length, 1);
    assert.deepEqual(got.metadata, []);
  });

  test("a native histogram in a thanos TimeSeries arrives as prometheus histograms (field 4)", () => {
    const bytes = ThanosWriteRequest.encode(
      ThanosWriteRequest.create({
        timeseries: [{ labels: series.labels, histograms: [{ count: { $case: "countInt", value: 3n }, schema: 1 }] }],
      }),
    ).finish();
    const h = PromWriteRequest.decode(bytes).timeseries[0]?.histograms[0];
    assert.deepEqual(h?.count, { $case: "countInt", value: 3n });
    assert.equal(h?.schema, 1);
  });

  test("keeps a stale marker's bits in a double field, on the wire and decoded", (t) => {
    const bytes = ThanosWriteRequest.encode(ThanosWriteRequest.create({ timeseries: [series] })).finish();
    const onWire = Buffer.from(bytes).indexOf(Buffer.from("020000000000f07f", "hex"));
    assert.ok(onWire >= 0, "stale marker bits (little-endian) not found in the encoded bytes");

    const decoded = PromWriteRequest.decode(bytes).timeseries[0]?.samples[0]?.value ?? 0;
    t.diagnostic(`Sample.value decoded bits: ${hex(bitsOf(decoded))}`);
    assert.equal(hex(bitsOf(decoded)), hex(STALE_BITS));
  });
});
