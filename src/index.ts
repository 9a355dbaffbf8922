/**
 * Strata as a library: `import { Strata } from 'strata-tsdb'`. Everything a
 * program embedding the store needs, and nothing of its internals: the
 * Strata class, its options and shapes (native histograms included), and
 * its typed errors.
 *
 * @example
 * import { Strata, SamplesRejectedError } from 'strata-tsdb';
 *
 * const store = await Strata.open({ dataDir: './data', grpcAddress: '127.0.0.1:10901' });
 * try {
 *   await store.append({ labels: { __name__: 'up', job: 'api' }, timestamps: [Date.now()], values: [1] });
 * } catch (err) {
 *   if (!(err instanceof SamplesRejectedError)) throw err;
 * }
 * await store.close();
 *
 * @packageDocumentation
 */
export { Strata } from './lib/strata.js';
export type { Duration, Size, StrataLogger, StrataOptions } from './lib/options.js';
export type {
  AppendOptions, AppendResult, BoundAddress, Chunk, LabelOptions, Labels, LabelsInput, Listening, ListenOptions, Matcher,
  MatchOperator, RangeOptions, Selector, SelectOptions, SeriesChunks, SeriesInput, SeriesSamples, StoreStats, Time,
} from './lib/types.js';
export type { CounterResetHint, FloatHistogram, Histogram, HistogramSample, Span } from './lib/histogram-types.js';
export {
  ClosedError, DataDirInUseError, InternalError, InvalidArgumentError, LimitError, ListenError, SamplesRejectedError, StrataError,
  UnavailableError, type RejectedSamples, type StrataErrorCode,
} from './lib/errors.js';
