import type { Db } from '../db/db.js';
import type { HeadWasm } from '../wasm/head.js';
import { EngineSource } from './engine-source.js';
import type { ExternalLabels } from './external-labels.js';
import { withExternalLabels } from './source-external-labels.js';
import { withLimits } from './source-limits.js';
import { recovering } from './source-recover.js';
import { withRequestLimit } from './source-request-limit.js';
import { withSharding } from './source-shard.js';
import { StoreApi, type OtherApis, type StoreComponent } from './store-api.js';
import type { StoreSource } from './store-source.js';

/** How a store answers, from the serve flags. */
export interface StoreApiConfig {
  /** --label. */
  externalLabels: ExternalLabels;
  /** --replica-label: when not empty, the only labels without_replica_labels may remove. */
  replicaLabels: ReadonlySet<string>;
  /** --tenant-label-name; '' for a source without tenants (a sidecar). */
  tenantLabel: string;
  /** --store.limits.request-series / -samples; 0 = none. */
  seriesLimit: number;
  samplesLimit: number;
}

/**
 * The one place the decorators are put together, innermost first; each
 * one's place follows from what it must see:
 * 1. recovering: right over the source, so that everything above sees an
 *    answer or a typed error, and a fault is named after the source.
 * 2. withExternalLabels: decides matchers on external labels before the
 *    source is asked, then answers labels as the client will see them
 *    (external labels in, replica labels out) and re-sorts.
 * 3. withSharding: hashes the labels as answered, so over 2.
 * 4. withRequestLimit: cuts the answer as answered, sorted and sharded,
 *    so over 3.
 * 5. withLimits: counts what will be answered (after the cut) and fails
 *    before the first frame, so outermost.
 * Telemetry is not a source decorator: the gRPC server times calls by
 * method and status code (telemetry.ts), as Thanos does with its gRPC
 * server interceptors.
 *
 * @example
 * const api = new StoreApi(decorateSource(new EngineSource(db, 'tenant_id'), cfg, wasm, 'engine source'), 'receive');
 */
export function decorateSource(source: StoreSource, cfg: StoreApiConfig, wasm: HeadWasm, name: string): StoreSource {
  let s = recovering(source, name);
  s = withExternalLabels(s, { externalLabels: cfg.externalLabels, replicaLabels: cfg.replicaLabels, tenantLabel: cfg.tenantLabel });
  s = withSharding(s, wasm);
  s = withRequestLimit(s);
  return withLimits(s, { seriesLimit: cfg.seriesLimit, samplesLimit: cfg.samplesLimit });
}

/**
 * The engine's Store API, as `strata serve` answers it (Thanos Receive's
 * component type); Info advertises the exemplars and metadata APIs that
 * `strata serve` serves beside it (server.ts).
 */
export function engineStoreApi(db: Db, cfg: StoreApiConfig, wasm: HeadWasm): StoreApi {
  const others = { exemplars: () => db.exemplars.timeRange(), metricMetadata: true };
  return storeApiOver(new EngineSource(db, cfg.tenantLabel), cfg, wasm, 'engine source', 'receive', others);
}

/** Any source's Store API: decorated as above, behind the Store API edge. */
export function storeApiOver(source: StoreSource, cfg: StoreApiConfig, wasm: HeadWasm, name: string, component: StoreComponent, others: OtherApis = {}): StoreApi {
  return new StoreApi(decorateSource(source, cfg, wasm, name), component, others);
}
