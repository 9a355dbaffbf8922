/**
 * Per-tenant write limits and back-pressure, as Thanos Receive applies
 * them (pkg/receive/handler.go receiveHTTP, limiter.go,
 * request_limiter.go, head_series_limiter.go), to every remote write:
 * HTTP (/api/v1/write, /api/v1/receive) and gRPC WriteableStore.
 *
 * A write meets the checks in this order; the first that fails refuses
 * the whole request before anything is stored:
 *
 * | check | answer | Thanos |
 * |---|---|---|
 * | memory pressure (memory-pressure.ts) | 503, Retry-After 5; gRPC Unavailable | Strata's |
 * | more than write.global.max_concurrency in flight | 429, Retry-After 1; gRPC ResourceExhausted | Thanos queues the request instead |
 * | tenant at or over head_series_limit | 429 "tenant is above active series limit" | the same |
 * | body over size_bytes_limit (compressed, then decompressed) | 413 "write request too large" | the same |
 * | more series than series_limit | 413 "too many timeseries" | the same |
 * | more samples than samples_limit | 413 "too many samples" | the same |
 *
 * gRPC has no Retry-After; the limit answers there are ResourceExhausted
 * (the one table, src/errors/status.ts). Over gRPC the tenant is in
 * the message, so the tenant's checks come after parsing (still before
 * anything is stored).
 *
 * The configuration can be swapped at any time (reload); the checks read
 * the one in place when they run. Everything is on the event loop: the
 * in-flight count needs no lock.
 */
import { overloaded, tooManyRequests, limitExceeded } from '../../errors/errors.js';
import { limitsOf, NO_LIMITS, type LimitsConfig, type TenantLimits } from './limits-config.js';
import type { MemoryPressure } from './memory-pressure.js';
import { RefusalCounts } from './refusals.js';

/**
 * Seconds a client is told to wait when too many writes are in flight. A
 * write takes milliseconds; one second is the smallest Retry-After.
 */
export const CONCURRENCY_RETRY_AFTER_S = 1;
/**
 * Seconds a client is told to wait under memory pressure: time for a few
 * garbage collections, and for requests in flight to finish and let go.
 */
export const MEMORY_RETRY_AFTER_S = 5;

/** What the head-series check needs of the engine. */
export interface HeadSeriesCounter {
  /** Series in the head with label `name` = `value`. */
  seriesWithLabel(name: string, value: string): number;
}

/**
 * The checks a remote write goes through (src/ingest/writer.ts calls
 * them in this order). Each check throws the refusal, a StoreRequestError.
 */
export interface WriteAdmission {
  /**
   * First, before the body is parsed: memory and concurrency. On success
   * the write holds a slot until leave(), which the caller must call
   * exactly once. `tenant` is called only to name a refused write's tenant.
   */
  enter(tenant: () => string): void;
  /** The write is done (stored or refused): its slot is free. */
  leave(): void;
  /**
   * Once the tenant is known: its head series, then the body's size
   * (`body`: as received; `decoded`: after decompression, when known).
   */
  admitTenant(tenant: string, size: { body: number; decoded?: number }, head: HeadSeriesCounter): void;
  /** After parsing, before appending: the request's series (all of them) and float samples. */
  admitContent(tenant: string, series: number, samples: number): void;
}

/** Where the tenant label lives: the limiter counts a tenant's head series by it. */
export interface WriteLimiterOptions {
  /** --tenant-label-name. */
  tenantLabel: string;
  /** The memory rule's state; no memory check without it. */
  memory?: MemoryPressure;
}

/**
 * The limits in place and the counts of what they refused.
 *
 * @example
 * const limiter = new WriteLimiter(parseLimitsConfig(yaml), { tenantLabel: 'tenant_id' });
 * limiter.enter(() => tenant);
 * try {
 *   limiter.admitTenant(tenant, { body: body.length }, db);
 *   // parse ...
 *   limiter.admitContent(tenant, parsed.series, parsed.samples);
 *   // append ...
 * } finally {
 *   limiter.leave();
 * }
 */
export class WriteLimiter implements WriteAdmission {
  private limits: LimitsConfig;
  private flying = 0;
  /** Refusals so far, per tenant and reason. */
  readonly refusals = new RefusalCounts();

  constructor(config: LimitsConfig = NO_LIMITS, private readonly opts: WriteLimiterOptions) {
    this.limits = config;
  }

  /** The configuration in place. */
  get config(): LimitsConfig {
    return this.limits;
  }

  /** Writes holding a slot now. */
  get inFlight(): number {
    return this.flying;
  }

  /** The memory rule's state, when there is one. */
  get memory(): MemoryPressure | undefined {
    return this.opts.memory;
  }

  /** Puts `config` in place; writes in flight keep their slots. */
  update(config: LimitsConfig): void {
    this.limits = config;
  }

  /** The limits that apply to `tenant` now. */
  limitsFor(tenant: string): TenantLimits {
    return limitsOf(this.limits, tenant);
  }

  enter(tenant: () => string): void {
    const pressure = this.opts.memory?.reason;
    if (pressure !== undefined) {
      this.refusals.add(tenant(), 'memory');
      throw overloaded(`the server is under memory pressure: ${pressure}; retry after ${MEMORY_RETRY_AFTER_S} s`, MEMORY_RETRY_AFTER_S);
    }
    const max = this.limits.maxConcurrency;
    if (max > 0 && this.flying >= max) {
      this.refusals.add(tenant(), 'concurrency');
      throw tooManyRequests(
        `too many concurrent write requests: ${this.flying} in flight, write.global.max_concurrency is ${max}; retry after ${CONCURRENCY_RETRY_AFTER_S} s`,
        CONCURRENCY_RETRY_AFTER_S,
      );
    }
    this.flying++;
  }

  leave(): void {
    this.flying--;
  }

  admitTenant(tenant: string, size: { body: number; decoded?: number }, head: HeadSeriesCounter): void {
    const l = this.limitsFor(tenant);
    if (l.headSeries > 0) {
      const n = head.seriesWithLabel(this.opts.tenantLabel, tenant);
      if (n >= l.headSeries) {
        this.refusals.add(tenant, 'head_series');
        throw tooManyRequests(`tenant is above active series limit: tenant ${JSON.stringify(tenant)} has ${n} series in the head, its head_series_limit is ${l.headSeries}`);
      }
    }
    if (l.sizeBytes > 0) {
      if (size.body > l.sizeBytes) this.refuseSize(tenant, size.body, l.sizeBytes, '');
      if (size.decoded !== undefined && size.decoded > l.sizeBytes) this.refuseSize(tenant, size.decoded, l.sizeBytes, ' decompressed');
    }
  }

  admitContent(tenant: string, series: number, samples: number): void {
    const l = this.limitsFor(tenant);
    if (l.series > 0 && series > l.series) {
      this.refusals.add(tenant, 'series', series - l.series);
      throw limitExceeded(`too many timeseries: ${series} in the request, over the series_limit of ${l.series} of tenant ${JSON.stringify(tenant)}`);
    }
    if (l.samples > 0 && samples > l.samples) {
      this.refusals.add(tenant, 'samples', samples - l.samples);
      throw limitExceeded(`too many samples: ${samples} in the request, over the samples_limit of ${l.samples} of tenant ${JSON.stringify(tenant)}`);
    }
  }

  private refuseSize(tenant: string, bytes: number, limit: number, how: string): never {
    this.refusals.add(tenant, 'body_size', bytes - limit);
    throw limitExceeded(`write request too large: ${bytes} bytes${how}, over the size_bytes_limit of ${limit} of tenant ${JSON.stringify(tenant)}`);
  }
}
