/**
 * Thanos' metadata API (thanos.Metadata/MetricMetadata) over the metadata
 * store, independent of the transport. Every tenant's families, merged: a
 * family told differently by two tenants has both entries, as Thanos
 * merges what several Prometheus servers expose. `limit` as Thanos
 * forwards it to Prometheus: negative for none, 0 answers none.
 */
import type { MetricMetadata, MetricMetadataRequest } from '../gen/thanos/metadata/rpc.js';
import type { MetadataStore } from '../metadata/metadata-store.js';

export class MetadataApi {
  constructor(private readonly store: () => MetadataStore) {}

  metricMetadata(req: MetricMetadataRequest): MetricMetadata {
    const families = this.store().byFamily({ ...(req.metric === '' ? {} : { metric: req.metric }), limit: req.limit });
    // No prototype: a family named "__proto__" is a key like any other.
    const metadata = Object.create(null) as MetricMetadata['metadata'];
    for (const [name, metas] of families) metadata[name] = { metas };
    return { metadata };
  }
}
