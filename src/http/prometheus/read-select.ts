/**
 * The selection behind a remote-read query: the tenant's series matching
 * the query's matchers with data in its time range, labels as written
 * (without the tenant label), sorted, with their chunks as stored.
 */
import type { Db } from '../../db/db.js';
import type { SelectedSeries } from '../../query/types.js';
import type { Query } from '../../gen/prometheus/remote.js';
import { InvalidMatcherError, type LabelMatcher } from '../../index/index.js';
import { scopedMatchers, unscoped, type TenantScope } from './tenant.js';

/** One query's answer before encoding. */
export interface QuerySelection {
  /** Inclusive range in ms; beyond ±2^53 as good as infinite. */
  start: number;
  end: number;
  series: SelectedSeries[];
}

/** An int64 of the wire as a number; beyond ±2^53 it is as good as infinite. */
export function toMs(t: bigint): number {
  if (t >= 9007199254740991n) return Infinity;
  if (t <= -9007199254740991n) return -Infinity;
  return Number(t);
}

/** Remote-read matchers (type EQ 0, NEQ 1, RE 2, NRE 3) as the engine's. */
export function toMatchers(query: Query): LabelMatcher[] {
  return query.matchers.map((m) => {
    if (m.type < 0 || m.type > 3) throw new InvalidMatcherError(m.value, `unknown match type ${m.type} for label ${JSON.stringify(m.name)}`);
    return { type: m.type as LabelMatcher['type'], name: m.name, value: m.value };
  });
}

/**
 * Selects the series of `query` in the tenant's view. Synchronous: the
 * answer is consistent at the moment of the call, and an invalid matcher
 * throws (InvalidMatcherError: 400) before anything is answered.
 */
export function selectQuery(db: Db, query: Query, scope: TenantScope): QuerySelection {
  const start = toMs(query.startTimestampMs);
  const end = toMs(query.endTimestampMs);
  const matchers = scopedMatchers(toMatchers(query), scope);
  if (matchers === undefined) return { start, end, series: [] };
  return { start, end, series: unscoped(db.querier().select(matchers, start, end), scope) };
}
