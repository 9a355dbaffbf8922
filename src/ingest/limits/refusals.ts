/**
 * Counts of refused writes per tenant and reason, kept in plain numbers
 * and read by /metrics at scrape time (src/metrics/strata-metrics.ts).
 * Only refusals touch them: an accepted write costs nothing here.
 */

/**
 * Why a write was refused. The request limits carry Thanos' limit names
 * (the `limit` label of thanos_receive_write_limits_hit).
 */
export const REFUSAL_REASONS = ['body_size', 'series', 'samples', 'head_series', 'concurrency', 'memory'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** The request limits, whose refusals also record how far over the limit they were. */
export const REQUEST_LIMITS = ['body_size', 'series', 'samples'] as const;
export type RequestLimitName = (typeof REQUEST_LIMITS)[number];

/** One tenant's counts. */
export interface TenantRefusals {
  /** Refused writes by reason, indexed as REFUSAL_REASONS. */
  readonly count: Float64Array;
  /** Per request limit (REQUEST_LIMITS order): the sum of how far over the limit refused requests were. */
  readonly overSum: Float64Array;
}

export class RefusalCounts {
  private readonly byTenant = new Map<string, TenantRefusals>();

  /** Counts one refusal; `over` is how far past the limit the request was (request limits). */
  add(tenant: string, reason: RefusalReason, over = 0): void {
    let t = this.byTenant.get(tenant);
    if (t === undefined) {
      t = { count: new Float64Array(REFUSAL_REASONS.length), overSum: new Float64Array(REQUEST_LIMITS.length) };
      this.byTenant.set(tenant, t);
    }
    t.count[REFUSAL_REASONS.indexOf(reason)]!++;
    const limit = (REQUEST_LIMITS as readonly string[]).indexOf(reason);
    if (limit >= 0) t.overSum[limit]! += over;
  }

  /** Every tenant with a refusal, and its counts. */
  entries(): IterableIterator<[string, TenantRefusals]> {
    return this.byTenant.entries();
  }

  /** Refusals of `tenant` for `reason` so far. */
  get(tenant: string, reason: RefusalReason): number {
    return this.byTenant.get(tenant)?.count[REFUSAL_REASONS.indexOf(reason)] ?? 0;
  }
}
