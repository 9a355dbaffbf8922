// Pins the wire contract added for remote write 2.0, exemplars and metadata
// (proto/prometheus/write/v2, proto/thanos/exemplars, proto/thanos/metadata)
// to the facts real clients depend on: method paths, field numbers and
// types, enum values, reserved fields. Loaded with @grpc/proto-loader, not
// the generated code, as test/proto/wire.test.ts does for the rest.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadSync } from "@grpc/proto-loader";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const defs = loadSync(
  ["prometheus/write/v2/types.proto", "thanos/exemplars/rpc.proto", "thanos/metadata/rpc.proto"],
  { includeDirs: [join(root, "proto"), join(root, "node_modules", "protoc", "include")], keepCase: true },
);

interface Field {
  name: string;
  number: number;
  label: string;
  type: string;
  typeName: string;
}
interface Message {
  field: Field[];
  enumType: { name: string; value: { name: string; number: number }[] }[];
  reservedRange: { start: number; end: number }[];
}

function message(fullName: string): Message {
  const def = defs[fullName] as { format?: string; type?: Message } | undefined;
  assert.ok(def?.format === "Protocol Buffer 3 DescriptorProto" && def.type, `${fullName} is not a message`);
  return def.type;
}

function shape(fullName: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of message(fullName).field) {
    const type = f.typeName ? (f.typeName.split(".").pop() ?? "") : f.type.replace("TYPE_", "").toLowerCase();
    out[f.name] = `${f.number} ${f.label === "LABEL_REPEATED" ? "repeated " : ""}${type}`;
  }
  return out;
}

function reserved(fullName: string): number[] {
  return message(fullName).reservedRange.flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i));
}

describe("remote write 2.0 (io.prometheus.write.v2)", () => {
  test("Request: symbols = 4, timeseries = 5; 1 to 3 reserved (a 1.0 message reads as empty)", () => {
    assert.deepEqual(shape("io.prometheus.write.v2.Request"), { symbols: "4 repeated string", timeseries: "5 repeated TimeSeries" });
    assert.deepEqual(reserved("io.prometheus.write.v2.Request"), [1, 2, 3]);
  });

  test("TimeSeries, Sample (start_timestamp = 3), Exemplar, Metadata", () => {
    assert.deepEqual(shape("io.prometheus.write.v2.TimeSeries"), {
      labels_refs: "1 repeated uint32", samples: "2 repeated Sample", histograms: "3 repeated Histogram",
      exemplars: "4 repeated Exemplar", metadata: "5 Metadata",
    });
    assert.deepEqual(reserved("io.prometheus.write.v2.TimeSeries"), [6]);
    assert.deepEqual(shape("io.prometheus.write.v2.Sample"), { value: "1 double", timestamp: "2 int64", start_timestamp: "3 int64" });
    assert.deepEqual(shape("io.prometheus.write.v2.Exemplar"), { labels_refs: "1 repeated uint32", value: "2 double", timestamp: "3 int64" });
    assert.deepEqual(shape("io.prometheus.write.v2.Metadata"), { type: "1 MetricType", help_ref: "3 uint32", unit_ref: "4 uint32" });
    const types = message("io.prometheus.write.v2.Metadata").enumType.find((e) => e.name === "MetricType")!.value;
    assert.deepEqual(Object.fromEntries(types.map((v) => [v.name, v.number])), {
      METRIC_TYPE_UNSPECIFIED: 0, METRIC_TYPE_COUNTER: 1, METRIC_TYPE_GAUGE: 2, METRIC_TYPE_HISTOGRAM: 3,
      METRIC_TYPE_GAUGEHISTOGRAM: 4, METRIC_TYPE_SUMMARY: 5, METRIC_TYPE_INFO: 6, METRIC_TYPE_STATESET: 7,
    });
  });

  test("Histogram's start_timestamp = 17 and custom_values = 16", () => {
    const h = shape("io.prometheus.write.v2.Histogram");
    assert.equal(h.start_timestamp, "17 int64");
    assert.equal(h.custom_values, "16 repeated double");
    assert.equal(h.timestamp, "15 int64");
  });
});

describe("Thanos exemplars and metadata APIs (package thanos)", () => {
  test("/thanos.Exemplars/Exemplars and /thanos.Metadata/MetricMetadata are server streams", () => {
    for (const [service, name, request, response] of [
      ["thanos.Exemplars", "Exemplars", "ExemplarsRequest", "ExemplarsResponse"],
      ["thanos.Metadata", "MetricMetadata", "MetricMetadataRequest", "MetricMetadataResponse"],
    ] as const) {
      const m = (defs[service] as Record<string, { path: string; requestStream: boolean; responseStream: boolean; requestType: { type: { name: string } }; responseType: { type: { name: string } } }>)[name]!;
      assert.equal(m.path, `/${service}/${name}`);
      assert.equal(m.requestStream, false);
      assert.equal(m.responseStream, true);
      assert.equal(m.requestType.type.name, request);
      assert.equal(m.responseType.type.name, response);
    }
  });

  test("exemplars messages", () => {
    assert.deepEqual(shape("thanos.ExemplarsRequest"), { query: "1 string", start: "2 int64", end: "3 int64", partial_response_strategy: "4 PartialResponseStrategy" });
    assert.deepEqual(shape("thanos.ExemplarsResponse"), { data: "1 ExemplarData", warning: "2 string" });
    assert.deepEqual(shape("thanos.ExemplarData"), { seriesLabels: "1 ZLabelSet", exemplars: "2 repeated Exemplar" });
    assert.deepEqual(shape("thanos.Exemplar"), { labels: "1 ZLabelSet", value: "2 double", ts: "3 int64" });
  });

  test("metadata messages", () => {
    assert.deepEqual(shape("thanos.MetricMetadataRequest"), { metric: "1 string", limit: "2 int32", partial_response_strategy: "3 PartialResponseStrategy" });
    assert.deepEqual(shape("thanos.MetricMetadataResponse"), { metadata: "1 MetricMetadata", warning: "2 string" });
    // map<string, MetricMetadataEntry> metadata = 1: a repeated map entry message (key = 1, value = 2).
    assert.deepEqual(shape("thanos.MetricMetadata"), { metadata: "1 repeated Metadata" });
    const entry = (message("thanos.MetricMetadata") as Message & { nestedType: Array<Message & { name: string; options: { mapEntry: boolean } }> }).nestedType[0]!;
    assert.equal(entry.options.mapEntry, true);
    assert.deepEqual(entry.field.map((f) => [f.name, f.number, f.typeName || f.type]), [["key", 1, "TYPE_STRING"], ["value", 2, "MetricMetadataEntry"]]);
    assert.deepEqual(shape("thanos.MetricMetadataEntry"), { metas: "2 repeated Meta" });
    assert.deepEqual(shape("thanos.Meta"), { type: "1 string", help: "2 string", unit: "3 string" });
  });
});
