/**
 * The fourth implementation the acceptance suite runs against: the
 * sidecar's source over a real Prometheus 2.42, in process, decorated as
 * `strata sidecar` decorates it (src/cli/sidecar.ts: tenant label '',
 * external labels as Prometheus' configuration holds them) with the
 * config's replica labels and limits.
 *
 * Each open() starts its own Prometheus whose global.external_labels are
 * the config's (none: no external_labels), because every group expects a
 * store of its own and Prometheus can neither forget data nor go back in
 * time. A write is a remote write to Prometheus with the suite's tenant
 * label added to every series as an ordinary label: the sidecar has no
 * tenants, so the label stored with the data makes its answers comparable
 * with the engine's (StoreKind.tenants 'stored'). Once Prometheus has
 * answered, the write waits for the head compaction it may have started
 * (data then read from the blocks, the rest from the head by remote read)
 * and re-reads the blocks and Prometheus' status, as the sidecar's watcher
 * and heartbeat do.
 */
import { PrometheusBlocks } from '../../../src/sidecar/prometheus-blocks.js';
import { PrometheusPeer } from '../../../src/sidecar/prometheus-peer.js';
import { SidecarSource } from '../../../src/sidecar/sidecar-source.js';
import { ExternalLabels } from '../../../src/store/external-labels.js';
import { StoreApi } from '../../../src/store/store-api.js';
import { decorateSource } from '../../../src/store/store-stack.js';
import type { Series } from '../../http/prometheus/support/prom-wire.js';
import { compareStrings } from '../support/series-check.js';
import { startPrometheusReceiver } from '../support/prometheus-receiver.js';
import { bitsOfNumber, type WriteRequestInput } from '../support/write-request.js';
import { TENANT_LABEL, apiConfig, inProcess, tenantOf, wasm, type StoreFactory } from './store-under-test.js';

/** Longest wait for one call to Prometheus (remote read, label API, status). */
const PROMETHEUS_TIMEOUT_MS = 30_000;

const quiet = { info() {}, warn() {} };

/** SidecarSource over a Prometheus of its own, decorated as `strata sidecar` does, in process. */
export const inProcessSidecar: StoreFactory = {
  name: 'sidecar source over Prometheus in process',
  kind: { component: 'sidecar', tenants: 'stored' },
  differences: {
    labelsInDataSpan:
      "for the head's range, label names and values come from Prometheus' label API, which answers those of every series in its head " +
      "(matching the matchers) whenever the range overlaps the head's span, as Thanos' sidecar answers them",
  },
  async open(config) {
    const prometheus = await startPrometheusReceiver(config.externalLabels ?? {});
    try {
      const peer = new PrometheusPeer(prometheus.base, quiet, PROMETHEUS_TIMEOUT_MS);
      if (!(await peer.refresh())) throw new Error(`${peer.reason}\n${prometheus.output()}`);
      const blocks = new PrometheusBlocks(prometheus.dataDir, quiet);
      await blocks.refresh();
      const source = new SidecarSource({
        prometheusUrl: prometheus.base,
        blocks,
        externalLabels: () => peer.externalLabels,
        lowestTimestamp: () => peer.lowestTimestamp,
        timeoutMs: PROMETHEUS_TIMEOUT_MS,
      });
      const cfg = { ...apiConfig(config), externalLabels: new ExternalLabels(peer.externalLabels.map(([n, v]) => [n, v])), tenantLabel: '' };
      const api = new StoreApi(decorateSource(source, cfg, wasm(), 'Prometheus'), 'sidecar');
      return inProcess(api, {
        async write(input) {
          await prometheus.write(toPrometheus(input));
          await prometheus.settled();
          await blocks.refresh();
          if (!(await peer.refresh())) throw new Error(peer.reason);
        },
        async close() {
          for (const r of blocks.readers) r.block.close();
          await prometheus.stop();
        },
      });
    } catch (err) {
      await prometheus.stop();
      throw err;
    }
  },
};

/** The write as Prometheus' remote write: the tenant as a stored label, labels sorted, values as raw bits. */
function toPrometheus(input: WriteRequestInput): Series[] {
  const tenant = tenantOf(input);
  return input.timeseries.map((s) => ({
    labels: [...s.labels.filter(([n]) => n !== TENANT_LABEL), [TENANT_LABEL, tenant] as const].sort(([a], [b]) => compareStrings(a, b)),
    samples: (s.samples ?? []).map((x) => ({ t: Number(x.t), bits: x.bits ?? bitsOfNumber(x.v ?? 0) })),
  }));
}
