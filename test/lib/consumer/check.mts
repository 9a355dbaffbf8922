// Type-checked against the installed package's .d.ts files (strict, no
// skipLibCheck): the types a TypeScript user gets are real and complete.
// Never run; test/lib/package.test.ts runs tsc over it.
import {
  ClosedError, InvalidArgumentError, LimitError, SamplesRejectedError, Strata, StrataError,
  type FloatHistogram, type Histogram, type HistogramSample, type Labels, type Listening, type Matcher, type SeriesChunks, type SeriesSamples, type StrataErrorCode, type StrataOptions,
} from 'strata-tsdb';

const options: StrataOptions = {
  dataDir: 'data',
  retention: '30d',
  retentionSize: 50 * 2 ** 30,
  externalLabels: [['cluster', 'eu-1']],
  tsdbOutOfOrderTimeWindow: '1h',
  storeLimitsRequestSeries: 10_000,
};

export async function main(): Promise<number> {
  const store: Strata = await Strata.open(options);
  const { samples } = await store.append({ labels: { __name__: 'up' }, timestamps: BigInt64Array.of(1n), values: [1] }, { tenant: 't' });
  const h: Histogram = {
    counterResetHint: 0, schema: 0, zeroThreshold: 1e-128, zeroCount: 0, count: 2, sum: 3,
    positiveSpans: [{ offset: 1, length: 1 }], positiveBuckets: [2], negativeSpans: [], negativeBuckets: [],
  };
  const f: FloatHistogram = { ...h, count: 2.5, positiveBuckets: [2.5] };
  const hs: HistogramSample[] = [{ timestamp: 1, float: false, histogram: h }, { timestamp: 2, float: true, histogram: f }];
  const { histograms } = await store.append({ labels: { __name__: 'rpc_seconds' }, histograms: hs });
  // @ts-expect-error float says which kind a histogram is: it is required
  void store.append({ labels: { __name__: 'rpc_seconds' }, histograms: [{ timestamp: 3, histogram: h }] });
  const matchers: Matcher[] = [{ name: 'job', type: '=~', value: 'a|b' }];
  let n = samples + histograms;
  for await (const s of store.select(matchers, { minTime: new Date(0), maxTime: Date.now() })) {
    const t: Float64Array = s.timestamps;
    const labels: Labels = s.labels;
    n += t.length + s.values.length + Object.keys(labels).length;
    for (const x of s.histograms ?? []) n += x.float ? x.histogram.count : x.histogram.positiveBuckets.length;
  }
  for await (const s of store.select('up', { chunks: true })) {
    const c: SeriesChunks = s;
    n += c.chunks.reduce((sum, chunk) => sum + chunk.data.byteLength, 0);
  }
  const listening: Listening = await store.listen({ grpcAddress: '127.0.0.1:0', httpAddress: '127.0.0.1:0' });
  n += listening.grpc?.port ?? 0;
  n += (await store.labelNames({ selector: 'up', limit: 10 })).length;
  n += (await store.labelValues('job', { tenant: 't' })).length;
  try {
    await store.append({ labels: [['a', 'b']], timestamps: [1], values: [1] });
  } catch (err) {
    if (err instanceof SamplesRejectedError) n += err.rejected.outOfOrder + (err.written ?? 0);
    else if (err instanceof LimitError) n += err.retryAfterSeconds ?? 0;
    else if (err instanceof InvalidArgumentError || err instanceof ClosedError) n += 1;
    else if (err instanceof StrataError) {
      const code: StrataErrorCode = err.code;
      n += code.length;
    }
  }
  // @ts-expect-error dataDir is required
  void Strata.open({});
  // @ts-expect-error stores come from Strata.open: the constructor is private
  void new Strata();
  // @ts-expect-error chunks: true yields SeriesChunks, not samples
  const wrong: AsyncIterableIterator<SeriesSamples> = store.select('up', { chunks: true });
  // @ts-expect-error not an operator
  void store.select([{ name: 'a', type: '~', value: 'b' }]);
  // @ts-expect-error durations are milliseconds or text
  void Strata.open({ dataDir: 'd', retention: true });
  void wrong;
  await store.close();
  return n;
}
