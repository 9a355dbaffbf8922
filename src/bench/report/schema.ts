/**
 * The JSON report of `strata bench` (--json FILE), version 1: its schema
 * as TypeBox (JSON Schema underneath), described field by field in
 * docs/format/bench-json.md. A field may be added within a version; none is
 * renamed or removed.
 */
import { Type, type Static } from '@sinclair/typebox';

export const SCHEMA_ID = 'strata-bench/v1';

const Num = Type.Number();
const NullableNum = Type.Union([Type.Number(), Type.Null()]);
const Count = Type.Integer({ minimum: 0 });

export const LatencySchema = Type.Object({
  count: Count,
  mean: NullableNum,
  p50: NullableNum,
  p90: NullableNum,
  p99: NullableNum,
  p999: NullableNum,
  max: NullableNum,
});

export const AnswersSchema = Type.Object({
  ok: Count,
  classes: Type.Object({
    '4xx': Count,
    '429': Count,
    '5xx': Count,
    network: Count,
    grpc: Count,
    aborted: Count,
  }),
  byCode: Type.Record(Type.String(), Count),
  retries: Count,
  examples: Type.Record(Type.String(), Type.String()),
});

export const TimelinePointSchema = Type.Object({
  t: Num,
  requests: Count,
  errors: Count,
  items: Count,
  frames: Count,
  bytes: Count,
  p50: NullableNum,
  p90: NullableNum,
  p99: NullableNum,
});

export const CallStatsSchema = Type.Object({
  requests: Count,
  errors: Count,
  series: Count,
  frames: Count,
  /** Series calls: chunks received (0 with skip_chunks). */
  chunks: Count,
  /** LabelNames and LabelValues: names or values answered. */
  values: Count,
  bytes: Count,
  latencyMs: LatencySchema,
});

/** Readiness probes during the load (run/readiness-probe.ts). */
export const ReadinessSchema = Type.Object({
  url: Type.String(),
  intervalMs: Num,
  /** Probes answered or failed. */
  probes: Count,
  /** Answered 200. */
  ok: Count,
  failures: Count,
  /** Failures by status ("503") or error code ("ECONNREFUSED", "timeout"). */
  byCode: Type.Record(Type.String(), Count),
  /** Over every probe that got an answer, whatever its status. */
  latencyMs: LatencySchema,
  slowMs: Num,
  /** Answers slower than slowMs. */
  slow: Count,
});

/**
 * An event loop's delay (ms), as prom-client's nodejs_eventloop_lag_*
 * gauges tell it: perf_hooks.monitorEventLoopDelay, whose values are the
 * intervals between its timer's firings (about its resolution, 10 ms by
 * default, when the loop is idle).
 */
export const EventLoopDelaySchema = Type.Object({
  minMs: NullableNum,
  meanMs: NullableNum,
  p50Ms: NullableNum,
  p90Ms: NullableNum,
  p99Ms: NullableNum,
  maxMs: NullableNum,
});

/** How responsive the target stayed while the load ran (run/responsiveness.ts). */
export const ResponsivenessSchema = Type.Object({
  /** null: not probed (see notes). */
  readiness: Type.Union([ReadinessSchema, Type.Null()]),
  /** The server's own figures from its /metrics; null: it exposes none (see notes). */
  serverEventLoop: Type.Union([Type.Object({
    ...EventLoopDelaySchema.properties,
    url: Type.String(),
    /** The families read, e.g. "strata_nodejs_eventloop_lag" (prom-client's names, with the server's prefix). */
    family: Type.String(),
    /** Seconds between the scrape before the load and the one after: the window the figures cover. */
    windowSeconds: Num,
  }), Type.Null()]),
  /** The probe thread's own loop over the load (resolution 10 ms, as prom-client's): probe latencies include its delays; null without a probe. */
  probeEventLoop: Type.Union([EventLoopDelaySchema, Type.Null()]),
  notes: Type.Array(Type.String()),
});

export const RunSchema = Type.Object({
  name: Type.String(),
  target: Type.String(),
  stoppedBy: Type.Union([Type.Literal('duration'), Type.Literal('load-sent'), Type.Literal('requests'), Type.Literal('interrupt'), Type.Literal('error')]),
  interrupted: Type.Boolean(),
  seconds: Num,
  unit: Type.Union([Type.Literal('samples'), Type.Literal('series')]),
  totals: Type.Object({ requests: Count, items: Count, histograms: Count, frames: Count, bytes: Count }),
  rates: Type.Object({ requestsPerSecond: Num, itemsPerSecond: Num, framesPerSecond: Num, bytesPerSecond: Num }),
  latencyMs: LatencySchema,
  answers: AnswersSchema,
  timelineBucketSeconds: Num,
  timeline: Type.Array(TimelinePointSchema),
  load: Type.Optional(Type.Object({
    profile: Type.String(),
    series: Count,
    seriesCreated: Count,
    samplesPerSeries: Count,
    intervalSeconds: Num,
    churn: Num,
    histogramShare: Num,
    seriesPerRequest: Count,
    requestsPlanned: Count,
    requestsSent: Count,
    samplesPlanned: Count,
    histogramsPlanned: Count,
    samplesWritten: Count,
    histogramsWritten: Count,
    encodedBytes: Count,
    rawBytes: Count,
    encodeSeconds: Num,
    minTime: Num,
    maxTime: Num,
    targetRate: Num,
  })),
  calls: Type.Optional(Type.Record(Type.String(), CallStatsSchema)),
  server: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Null()]))),
  /** remote-write and compare: readiness probes and event-loop delay during the load. */
  responsiveness: Type.Optional(ResponsivenessSchema),
});

export const ReportSchema = Type.Object({
  schema: Type.Literal(SCHEMA_ID),
  mode: Type.Union([Type.Literal('remote-write'), Type.Literal('store-api'), Type.Literal('compare')]),
  strataVersion: Type.String(),
  startedAt: Type.String(),
  command: Type.Array(Type.String()),
  machine: Type.Object({
    cores: Count,
    cpu: Type.String(),
    node: Type.String(),
    loadAverage: Type.Array(Num),
  }),
  runs: Type.Array(RunSchema),
  notes: Type.Array(Type.String()),
});

export type BenchReport = Static<typeof ReportSchema>;
export type RunReport = Static<typeof RunSchema>;
export type Latency = Static<typeof LatencySchema>;
export type CallStats = Static<typeof CallStatsSchema>;
export type Readiness = Static<typeof ReadinessSchema>;
export type EventLoopDelay = Static<typeof EventLoopDelaySchema>;
export type Responsiveness = Static<typeof ResponsivenessSchema>;
