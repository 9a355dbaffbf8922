/**
 * A deterministic catalogue of Kubernetes-like series, one target per pod:
 * what the kubelet's cAdvisor reports for the pod's two containers and its
 * network, what kube-state-metrics reports about the pod, and an
 * application's own HTTP and process metrics: about 110 series a pod.
 * Pods get namespace, pod and node labels; a later generation of a pod
 * (churn: a rollout) has a new pod name, as a ReplicaSet's new pods do.
 */
import { buildCatalogue, family, Model, seriesPerTarget, type Catalogue, type Family } from './catalogue.js';

const CONTAINERS = ['app', 'envoy'];
const NAMESPACES = ['checkout', 'payments', 'search', 'catalog', 'auth', 'shipping', 'frontend', 'monitoring'];
const DEPLOYMENTS = ['api', 'worker', 'web', 'consumer', 'gateway'];
/** Pods a node runs (110 is the kubelet's default maximum; clusters run fewer). */
const PODS_PER_NODE = 30;
const MIB = 1 << 20;

type Labels = Array<[string, string]>;

const cadvisor: Labels = [['job', 'kubelet'], ['metrics_path', '/metrics/cadvisor']];
const ksm: Labels = [['job', 'kube-state-metrics']];
const app: Labels = [['job', 'app']];
const perContainer = (base: Labels, extra: Labels[] = [[]]): Labels[] => CONTAINERS.flatMap((c) => extra.map((e): Labels => [...base, ['container', c], ...e]));

function podFamilies(): Family[] {
  const f: Family[] = [];
  // cAdvisor, per container: CPU in ms, memory in pages (4 KiB), file system bytes.
  f.push(family('container_cpu_usage_seconds_total', perContainer(cadvisor, [[['cpu', 'total']]]), Model.Counter, 0.001, 4000, 1e6, 1e6));
  f.push(family('container_cpu_user_seconds_total', perContainer(cadvisor), Model.Counter, 0.001, 3000, 1e6, 1e6));
  f.push(family('container_cpu_system_seconds_total', perContainer(cadvisor), Model.Counter, 0.001, 1000, 1e6, 1e6));
  f.push(family('container_cpu_cfs_periods_total', perContainer(cadvisor), Model.Counter, 1, 150, 1e5, 1e5));
  f.push(family('container_cpu_cfs_throttled_periods_total', perContainer(cadvisor), Model.Counter, 1, 3, 1e3, 1e3));
  f.push(family('container_cpu_cfs_throttled_seconds_total', perContainer(cadvisor), Model.FloatCounter, 1, 0.05, 100, 100));
  for (const name of ['container_memory_working_set_bytes', 'container_memory_rss', 'container_memory_usage_bytes', 'container_memory_cache', 'container_memory_mapped_file']) {
    f.push(family(name, perContainer(cadvisor), Model.Gauge, 4096, 2000, 20_000, 200_000));
  }
  f.push(family('container_memory_swap', perContainer(cadvisor), Model.Constant, 1, 0, 0));
  f.push(family('container_memory_failcnt', perContainer(cadvisor), Model.Constant, 1, 0, 0));
  f.push(family('container_oom_events_total', perContainer(cadvisor), Model.Counter, 1, 0, 0));
  f.push(family('container_fs_reads_bytes_total', perContainer(cadvisor, [[['device', '/dev/nvme0n1']]]), Model.Counter, 4096, 20, 1e6, 1e6));
  f.push(family('container_fs_writes_bytes_total', perContainer(cadvisor, [[['device', '/dev/nvme0n1']]]), Model.Counter, 4096, 200, 1e6, 1e6));
  f.push(family('container_fs_usage_bytes', perContainer(cadvisor, [[['device', '/dev/nvme0n1']]]), Model.Gauge, 4096, 10, 1000, 50_000));
  f.push(family('container_threads', perContainer(cadvisor), Model.Gauge, 1, 1, 8, 40));
  f.push(family('container_spec_cpu_shares', perContainer(cadvisor), Model.Constant, 1, 0, 512));
  f.push(family('container_spec_memory_limit_bytes', perContainer(cadvisor), Model.Constant, MIB, 0, 512));
  f.push(family('container_start_time_seconds', perContainer(cadvisor), Model.Constant, 1, 0, 1_700_000_000));
  f.push(family('container_last_seen', perContainer(cadvisor), Model.Clock, 1, 0, 0));
  // cAdvisor, per pod network interface.
  const eth0: Labels[] = [[...cadvisor, ['interface', 'eth0']]];
  for (const [name, step] of [['receive_bytes_total', 2_000_000], ['transmit_bytes_total', 1_500_000], ['receive_packets_total', 2000], ['transmit_packets_total', 1800],
    ['receive_errors_total', 0], ['transmit_errors_total', 0], ['receive_packets_dropped_total', 1], ['transmit_packets_dropped_total', 0]] as Array<[string, number]>) {
    f.push(family(`container_network_${name}`, eth0, Model.Counter, 1, step, 1e8, 1e8));
  }
  // kube-state-metrics.
  f.push(family('kube_pod_info', [[...ksm, ['created_by_kind', 'ReplicaSet'], ['host_network', 'false'], ['priority_class', 'default']]], Model.Constant, 1, 0, 1));
  for (const phase of ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']) {
    f.push(family('kube_pod_status_phase', [[...ksm, ['phase', phase]]], Model.Constant, 1, 0, phase === 'Running' ? 1 : 0));
  }
  for (const condition of ['true', 'false', 'unknown']) {
    f.push(family('kube_pod_status_ready', [[...ksm, ['condition', condition]]], Model.Constant, 1, 0, condition === 'true' ? 1 : 0));
  }
  f.push(family('kube_pod_created', [ksm], Model.Constant, 1, 0, 1_700_000_000));
  f.push(family('kube_pod_start_time', [ksm], Model.Constant, 1, 0, 1_700_000_004));
  f.push(family('kube_pod_owner', [[...ksm, ['owner_is_controller', 'true'], ['owner_kind', 'ReplicaSet']]], Model.Constant, 1, 0, 1));
  f.push(family('kube_pod_container_info', perContainer(ksm, [[['image', 'registry.example.internal/app:1.42.0']]]), Model.Constant, 1, 0, 1));
  f.push(family('kube_pod_container_status_ready', perContainer(ksm), Model.Constant, 1, 0, 1));
  f.push(family('kube_pod_container_status_running', perContainer(ksm), Model.Constant, 1, 0, 1));
  f.push(family('kube_pod_container_status_restarts_total', perContainer(ksm), Model.Counter, 1, 0, 0));
  f.push(family('kube_pod_container_resource_requests', perContainer(ksm, [[['resource', 'cpu'], ['unit', 'core']]]), Model.Constant, 0.001, 0, 250));
  f.push(family('kube_pod_container_resource_requests', perContainer(ksm, [[['resource', 'memory'], ['unit', 'byte']]]), Model.Constant, MIB, 0, 256));
  f.push(family('kube_pod_container_resource_limits', perContainer(ksm, [[['resource', 'cpu'], ['unit', 'core']]]), Model.Constant, 0.001, 0, 1000));
  f.push(family('kube_pod_container_resource_limits', perContainer(ksm, [[['resource', 'memory'], ['unit', 'byte']]]), Model.Constant, MIB, 0, 512));
  // The application's own metrics.
  const routes: Labels[] = [];
  for (const handler of ['/api/v1/items', '/api/v1/orders', '/healthz']) {
    for (const method of handler === '/healthz' ? ['GET'] : ['GET', 'POST']) {
      for (const code of ['200', '404', '500']) routes.push([...app, ['code', code], ['handler', handler], ['method', method]]);
    }
  }
  f.push(family('http_requests_total', routes, Model.Counter, 1, 40, 1e5, 1e5));
  f.push(family('http_request_duration_seconds_sum', routes, Model.FloatCounter, 1, 1.2, 5000, 5000));
  f.push(family('http_requests_in_flight', [app], Model.Gauge, 1, 2, 0, 30));
  f.push(family('process_cpu_seconds_total', [app], Model.Counter, 0.01, 200, 1e5, 1e5));
  f.push(family('process_resident_memory_bytes', [app], Model.Gauge, 4096, 500, 20_000, 60_000));
  f.push(family('process_open_fds', [app], Model.Gauge, 1, 2, 20, 80));
  f.push(family('go_goroutines', [app], Model.Gauge, 1, 5, 40, 400));
  f.push(family('go_gc_duration_seconds', ['0', '0.25', '0.5', '0.75', '1'].map((q): Labels => [...app, ['quantile', q]]), Model.FloatGauge, 1, 0.00001, 0.00002, 0.002));
  f.push(family('up', [app], Model.Constant, 1, 0, 1));
  return f;
}

/** Series one pod exposes. */
export const SERIES_PER_POD = seriesPerTarget(podFamilies());

/**
 * `n` written with `length` letters of Kubernetes' suffix alphabet, in
 * mixed-up digit order so that neighbours look unrelated; one-to-one for
 * n below 27^length, so pod names never collide.
 */
function suffix(n: number, length: number): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  let out = '';
  for (let i = 0; i < length; i++) {
    const digit = n % alphabet.length;
    n = Math.floor(n / alphabet.length);
    out += alphabet[(digit * 7 + i * 11) % alphabet.length];
  }
  return out;
}

/** The labels pod p carries in `generation` (each generation: a new pod of the same deployment). */
export function podLabels(p: number, generation = 0): Array<[string, string]> {
  const namespace = NAMESPACES[p % NAMESPACES.length]!;
  const deployment = DEPLOYMENTS[Math.floor(p / NAMESPACES.length) % DEPLOYMENTS.length]!;
  const node = Math.floor(p / PODS_PER_NODE);
  return [
    ['namespace', namespace],
    ['node', `ip-10-0-${Math.floor(node / 250)}-${node % 250}.ec2.internal`],
    ['pod', `${deployment}-${suffix(generation * 7919 + 4211, 9)}-${suffix(p, 5)}`],
  ];
}

/** Builds the catalogue of the first `count` series (pods filled one after another). */
export function kubeCatalogue(count: number): Catalogue {
  return buildCatalogue(podFamilies(), count, podLabels);
}
