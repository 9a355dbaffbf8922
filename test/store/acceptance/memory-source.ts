/**
 * A trivial StoreSource over series held in memory: what any source must
 * answer, and nothing more. It knows nothing of external labels, replica
 * labels, shards or limits; run through the acceptance suite with the same
 * decorators as the engine, it shows that those are the decorators' work.
 *
 * Each series is stored with its tenant label (as the engine stores
 * remote writes) and its samples cut into XOR chunks of 120 samples
 * (Prometheus' chunk size), encoded by the TypeScript codec. Matching uses
 * the project's RE2 matcher compiler, the one thing it borrows.
 */
import { TsXorCodec } from '../../../src/chunkenc/index.js';
import { compileMatcher, type LabelMatcher } from '../../../src/index/index.js';
import type { StoredChunk } from '../../../src/query/types.js';
import type {
  LabelNamesQuery, LabelValuesQuery, SeriesQuery, SeriesSet, SourceInfo, SourceSeries, StoreSource,
} from '../../../src/store/store-source.js';
import { compareStrings } from '../support/series-check.js';
import type { WriteSample } from '../support/write-request.js';

const CHUNK_SAMPLES = 120;

interface MemorySeries extends SourceSeries {
  readonly labels: string[];
  readonly chunks: StoredChunk[];
  minT: number;
  maxT: number;
}

const codec = new TsXorCodec();

export class MemorySource implements StoreSource {
  private readonly byKey = new Map<string, MemorySeries>();

  constructor(private readonly tenantLabel: string) {}

  /** Adds samples (in time order, after any held) to a series, its labels sorted by name. */
  add(labels: readonly string[], tenant: string, samples: readonly WriteSample[]): void {
    const withTenant: string[] = [];
    for (let i = 0; i < labels.length; i += 2) if (labels[i] !== this.tenantLabel) withTenant.push(labels[i]!, labels[i + 1]!);
    withTenant.push(this.tenantLabel, tenant);
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < withTenant.length; i += 2) pairs.push([withTenant[i]!, withTenant[i + 1]!]);
    pairs.sort(([a], [b]) => compareStrings(a, b));
    const sorted = pairs.flat();
    const key = JSON.stringify(sorted);
    let s = this.byKey.get(key);
    if (s === undefined) {
      s = { labels: sorted, chunks: [], minT: Infinity, maxT: -Infinity };
      this.byKey.set(key, s);
    }
    for (let from = 0; from < samples.length; from += CHUNK_SAMPLES) {
      const part = samples.slice(from, from + CHUNK_SAMPLES);
      const values = new Float64Array(part.length);
      const bits = new BigUint64Array(values.buffer);
      part.forEach((x, i) => {
        if (x.bits !== undefined) bits[i] = x.bits;
        else values[i] = x.v ?? 0;
      });
      const data = codec.encode(BigInt64Array.from(part.map((x) => x.t)), values);
      const minT = Number(part[0]!.t);
      const maxT = Number(part[part.length - 1]!.t);
      s.chunks.push({ minT, maxT, data });
      s.minT = Math.min(s.minT, minT);
      s.maxT = Math.max(s.maxT, maxT);
    }
  }

  series(query: SeriesQuery): SeriesSet {
    const selected = this.select(query.matchers, query.minT, query.maxT);
    let done = false;
    return {
      next: async () => {
        if (done) return undefined;
        done = true;
        return selected;
      },
      chunks: (series) => (series as MemorySeries).chunks.filter((c) => c.maxT >= query.minT && c.minT <= query.maxT),
      hasSurrogates: () => true,
      close: () => {},
    };
  }

  async labelNames(query: LabelNamesQuery): Promise<readonly string[]> {
    const names = new Set<string>();
    for (const s of this.select(query.matchers, query.minT, query.maxT)) for (let i = 0; i < s.labels.length; i += 2) names.add(s.labels[i]!);
    return [...names].sort(compareStrings);
  }

  async labelValues(query: LabelValuesQuery): Promise<readonly string[]> {
    const values = new Set<string>();
    for (const s of this.select(query.matchers, query.minT, query.maxT)) {
      const v = valueOf(s.labels, query.name);
      if (v !== '') values.add(v);
    }
    return [...values].sort(compareStrings);
  }

  async info(): Promise<SourceInfo> {
    let minT = Infinity;
    let maxT = -Infinity;
    const tenants = new Set<string>();
    for (const s of this.byKey.values()) {
      minT = Math.min(minT, s.minT);
      maxT = Math.max(maxT, s.maxT);
      tenants.add(valueOf(s.labels, this.tenantLabel));
    }
    return { minT, maxT, labels: [], labelSets: [...tenants].sort(compareStrings).map((t) => [this.tenantLabel, t]) };
  }

  /** Series matching every matcher with a chunk overlapping the range, sorted by labels. */
  private select(matchers: readonly LabelMatcher[], minT: number, maxT: number): MemorySeries[] {
    // Compiled first: an invalid matcher fails the request before anything is read.
    const compiled = matchers.map((m) => ({ name: m.name, c: compileMatcher(m) }));
    const out: MemorySeries[] = [];
    for (const s of this.byKey.values()) {
      if (!s.chunks.some((c) => c.maxT >= minT && c.minT <= maxT)) continue;
      // A missing label has the value "" (so {missing=""} matches).
      if (compiled.every(({ name, c }) => c.values.test(valueOf(s.labels, name)) !== c.negate)) out.push(s);
    }
    return out.sort((a, b) => compareLabelSets(a.labels, b.labels));
  }
}

function valueOf(labels: readonly string[], name: string): string {
  for (let i = 0; i < labels.length; i += 2) if (labels[i] === name) return labels[i + 1]!;
  return '';
}

function compareLabelSets(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareStrings(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}
