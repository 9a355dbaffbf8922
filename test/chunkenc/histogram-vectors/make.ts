// Remakes histogram-go-vectors.ts and histogram-chunker-vectors.ts from
// Prometheus v2.42.0's own code (see README.md beside this file):
//   GO_CHUNKS=path/to/chunks GO_HEAD=path/to/head node --import tsx test/chunkenc/histogram-vectors/make.ts
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { rng } from '../../support/series.js';
import { STALE_NAN, bitsOf, fh, headSeries, ih, randomSeries, stale, toFloat } from '../histogram-support.js';
import type { FloatHistogram, Histogram } from '../../../src/chunkenc/histogram/types.js';

interface GoSample { t: string; hint: number; schema: number; zt: string; zc: string; c: string; sum: string; ps: [number, number][]; ns: [number, number][]; pb: string[]; nb: string[] }
interface GoCase { name: string; float: boolean; header: number; samples: GoSample[] }

const hex = (v: number) => bitsOf(v).toString(16);
function toGo(t: bigint, h: Histogram | FloatHistogram, float: boolean): GoSample {
  return {
    t: t.toString(), hint: h.counterResetHint, schema: h.schema, zt: hex(h.zeroThreshold),
    zc: float ? hex(h.zeroCount) : String(h.zeroCount), c: float ? hex(h.count) : String(h.count), sum: hex(h.sum),
    ps: h.positiveSpans.map((s) => [s.offset, s.length]), ns: h.negativeSpans.map((s) => [s.offset, s.length]),
    pb: h.positiveBuckets.map((b) => (float ? hex(b) : String(b))), nb: h.negativeBuckets.map((b) => (float ? hex(b) : String(b))),
  };
}

function mk(name: string, float: boolean, header: number, ts: bigint[], hs: (Histogram | FloatHistogram)[]): GoCase {
  return { name, float, header, samples: hs.map((h, i) => toGo(ts[i]!, h, float)) };
}

const spans = [{ offset: 0, length: 2 }, { offset: 1, length: 2 }];
const nspans = [{ offset: 0, length: 2 }, { offset: 2, length: 2 }];
const series = (n: number, f: (i: number) => Histogram) => Array.from({ length: n }, (_, i) => f(i));
const ts15 = (n: number, start = 1_700_000_000_000n) => Array.from({ length: n }, (_, i) => start + BigInt(i) * 15_000n);

const hand: GoCase[] = [];
const same = series(4, (i) => ih({ count: 15 + i * 8, zeroCount: 2 + i, sum: 18.4 * (i + 1), schema: 1, positiveSpans: spans, negativeSpans: nspans,
  positive: [1 + i, 2 + i, 1 + 2 * i, 1 + i], negative: [2 + i, 1, 2 + i, 1 + i] }));
for (const float of [false, true]) {
  const conv = (hs: Histogram[]) => (float ? hs.map(toFloat) : hs);
  const p = float ? 'float ' : '';
  hand.push(mk(`${p}same buckets`, float, 0, ts15(4), conv(same)));
  hand.push(mk(`${p}one sample`, float, 0, ts15(1), conv(same.slice(0, 1))));
  hand.push(mk(`${p}empty histograms`, float, 0, ts15(3), conv(series(3, () => ih({ count: 0, sum: 0 })))));
  hand.push(mk(`${p}zero bucket only`, float, 0, ts15(3), conv(series(3, (i) => ih({ count: 3 * i, zeroCount: 3 * i, sum: i * 0.5, zeroThreshold: 0.001 })))));
  hand.push(mk(`${p}negative buckets only`, float, 0, ts15(3), conv(series(3, (i) => ih({ count: 6 + i, sum: -3.5 * i, negativeSpans: [{ offset: -2, length: 3 }], negative: [1, 2 + i, 3] })))));
  for (const schema of [-4, -1, 0, 3, 8]) {
    hand.push(mk(`${p}schema ${schema}`, float, 0, ts15(3), conv(series(3, (i) => ih({ count: 4 + i, sum: 1 + i, schema, positiveSpans: [{ offset: 5, length: 2 }], positive: [2, 2 + i] })))));
  }
  for (const zt of [0, -0, 2 ** -128, 0.001, 2 ** 10, 2 ** 11, 2 ** -243, 2 ** -244, Infinity, -1]) {
    hand.push(mk(`${p}zero threshold ${Object.is(zt, -0) ? '-0' : zt}`, float, 0, ts15(2), conv(series(2, (i) => ih({ count: 1 + i, zeroCount: 1 + i, sum: 1, zeroThreshold: zt })))));
  }
  hand.push(mk(`${p}stale first`, float, 0, ts15(3), conv([stale(), stale(), stale()])));
  hand.push(mk(`${p}stale after samples`, float, 0, ts15(4), conv([...same.slice(0, 2), stale(), stale()])));
  for (const header of [0, 1, 2, 3]) hand.push(mk(`${p}header ${header}`, float, header, ts15(2), conv(same.slice(0, 2))));
  hand.push(mk(`${p}wild timestamps`, float, 0, [0n, 2n ** 62n, -(2n ** 62n), 9223372036854775807n, -9223372036854775808n, 5n, 5n, 4n], conv(series(8, (i) => ih({ count: i, sum: i })))));
  hand.push(mk(`${p}large counts`, float, 0, ts15(3), conv(series(3, (i) => ih({ count: Number.MAX_SAFE_INTEGER - 2 + i, zeroCount: 2 ** 52 + i, sum: 1e300 * i, positiveSpans: [{ offset: 0, length: 2 }], positive: [2 ** 52, 2 ** 52 - 3 * i] })))));
  hand.push(mk(`${p}zero-length spans`, float, 0, ts15(3), conv(series(3, (i) => ih({ count: 9 + i, sum: 2, positiveSpans: [{ offset: 1, length: 0 }, { offset: 2, length: 3 }, { offset: 0, length: 0 }], positive: [2, 3, 4 + i] })))));
}
hand.push(mk('float special values', true, 0, ts15(5), [
  fh({ count: 1.5, sum: Infinity, zeroCount: 0.25, positiveSpans: [{ offset: 0, length: 3 }], positive: [-0, 5e-324, 1e308] }),
  fh({ count: 1.75, sum: -Infinity, zeroCount: 0.5, positiveSpans: [{ offset: 0, length: 3 }], positive: [Infinity, 0, 1e308] }),
  { ...fh({ count: 2, sum: 0, positiveSpans: [{ offset: 0, length: 3 }], positive: [1, 2, 3] }), sum: new Float64Array(new BigUint64Array([0x7ff8000000000001n]).buffer)[0]! },
  fh({ count: 2, sum: -0, positiveSpans: [{ offset: 0, length: 3 }], positive: [1, 2, 3] }),
  fh({ count: 0.1 + 0.2, sum: 0.3, positiveSpans: [{ offset: 0, length: 3 }], positive: [0.1, 0.2, 0.30000000000000004] }),
]));
void STALE_NAN;

function cases(): GoCase[] {
  const out = [...hand];
  const next = rng(4242);
  for (let i = 0; i < 30; i++) {
    const float = i % 2 === 1;
    const n = 1 + Math.floor(next() * 12);
    const { timestamps, histograms } = float ? randomSeries(next, n, true) : randomSeries(next, n, false);
    out.push(mk(`random ${i}`, float, Math.floor(next() * 4), [...timestamps], histograms));
  }
  return out;
}

// Chunks.
const cs = cases();
const out = execFileSync(process.env.GO_CHUNKS ?? 'chunks', { input: cs.map((c) => JSON.stringify(c)).join('\n') + '\n', maxBuffer: 1 << 28 }).toString().trim().split('\n').map((l) => JSON.parse(l));
const vectors = cs.map((c, i) => ({ ...c, hex: out[i].hex, ...(c.name.startsWith('random') ? {} : { decoded: out[i].decoded }), ...(out[i].err ? { err: out[i].err } : {}) }));
for (const v of vectors) if ((v as any).err) console.error('go error', v.name, (v as any).err);
const vectorsBody = `// Generated: each case's samples as input, the bytes Prometheus v2.42.0's
// chunkenc appenders wrote for them (HistogramAppender / FloatHistogramAppender
// on a new chunk, then SetCounterResetHeader(header)), and what its iterators
// decoded from those bytes (hand-made cases only; random ones decode to
// their input). Float fields are hex bit patterns; integer fields
// decimal strings. Made by a small Go program linked against v2.42.0's
// tsdb/chunkenc and model/histogram; do not edit by hand.
export interface GoSample { t: string; hint: number; schema: number; zt: string; zc: string; c: string; sum: string; ps: [number, number][]; ns: [number, number][]; pb: string[]; nb: string[] }
export interface GoVector { name: string; float: boolean; header: number; samples: GoSample[]; hex: string; decoded?: GoSample[] }

export const GO_VECTORS: GoVector[] = [
${vectors.map((v) => '  ' + JSON.stringify(v)).join(',\n')},
];
`;
writeFileSync(new URL('../histogram-go-vectors.ts', import.meta.url), vectorsBody);
console.log(vectors.length, 'chunk vectors');

// The head.

const SEQUENCES = Array.from({ length: 24 }, (_, i) => ({ seed: 1000 + i, n: i % 2 === 0 ? 60 + ((i * 37) % 300) : 400 + ((i * 53) % 500), chunkRange: i % 4 === 3 ? 600_000 : 7_200_000, eventful: i % 2 === 0 ? 1 : 0.03 }));
const headInput = SEQUENCES.map((s) => {
  const steps = headSeries(rng(s.seed), s.n, s.eventful);
  return { name: `seed ${s.seed}`, chunkRange: s.chunkRange, samples: steps.map((st) => ({ ...toGo(BigInt(st.t), st.h, st.float), float: st.float })) };
});
const headOut = execFileSync(process.env.GO_HEAD ?? 'head', { input: headInput.map((c) => JSON.stringify(c)).join('\n') + '\n', maxBuffer: 1 << 28 }).toString().trim().split('\n').map((l) => JSON.parse(l));
const digest = (hex: string) => createHash('sha256').update(hex).digest('hex').slice(0, 16);
const summary = (c: any) => c && { enc: c.enc, minT: c.minT, maxT: c.maxT, bytes: c.hex.length / 2, header: parseInt(c.hex.slice(4, 6), 16) >> 6, count: parseInt(c.hex.slice(0, 4), 16), sha: digest(c.hex) };
const chunkerVectors = SEQUENCES.map((s, i) => ({
  ...s,
  steps: headOut[i].results.map((r: any) => (!r.appended ? 'x' : !r.created ? '.' : r.closed ? 'C' : 'n')).join(''),
  closed: headOut[i].closed.map(summary),
  open: summary(headOut[i].open) ?? null,
}));
const chunkerBody = `// Generated: for each series of headSeries(rng(seed), n, eventful) (histogram-support.ts),
// what Prometheus v2.42.0's head does with it, as replayed by a small Go
// program that drives the real tsdb/chunkenc (Appendable, AppendableGauge,
// Recode, RecodeHistogram, the appenders) through the decisions of
// tsdb/head_append.go (memSeries.appendHistogram, appendFloatHistogram,
// appendPreprocessor). Per step: x not appended, . appended, n appended to a
// new chunk, C appended to a new chunk after closing one. Chunks by encoding,
// time range, size, header, sample count and the first 16 hex digits of the
// SHA-256 of their hex bytes. Do not edit by hand; changing headSeries means
// regenerating this file.
export interface ChunkSummary { enc: number; minT: number; maxT: number; bytes: number; header: number; count: number; sha: string }
export interface ChunkerVector { seed: number; n: number; chunkRange: number; eventful: number; steps: string; closed: ChunkSummary[]; open: ChunkSummary | null }

export const CHUNKER_VECTORS: ChunkerVector[] = [
${chunkerVectors.map((v) => '  ' + JSON.stringify(v)).join(',\n')},
];
`;
writeFileSync(new URL('../histogram-chunker-vectors.ts', import.meta.url), chunkerBody);
console.log(chunkerVectors.length, 'chunker vectors');
