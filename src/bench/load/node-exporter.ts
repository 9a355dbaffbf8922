/**
 * A deterministic catalogue of node_exporter-like series: what one host's
 * node_exporter exposes (CPU, disks, filesystems, network, memory, vmstat,
 * netstat, sockstat, hwmon, timex, collector durations, the Go runtime and
 * process metrics), about 500 series per host, for as many hosts as the
 * requested series count needs (the last host is cut short).
 *
 * Every series has a value model: counters (integer, centisecond or
 * free-float increments; some never move, as error counters do), gauges
 * (random walks on a grid: bytes in pages, loads in hundredths; or free
 * floats), constants (sizes, info metrics) and node_time_seconds (the scrape
 * time itself). The models live in typed arrays, one slot per series, so
 * that stepping 100k series a scrape builds no objects.
 */

import { buildCatalogue, family, Model, seriesPerTarget, type Catalogue, type Family } from './catalogue.js';

export { Model, type Catalogue } from './catalogue.js';

const CPUS = 8;
const MODES = ['idle', 'iowait', 'irq', 'nice', 'softirq', 'steal', 'system', 'user'];
const DISKS = ['nvme0n1', 'nvme1n1', 'sda', 'sdb'];
const FILESYSTEMS: Array<[string, string, string]> = [
  ['/dev/nvme0n1p1', 'ext4', '/'],
  ['/dev/nvme0n1p2', 'vfat', '/boot/efi'],
  ['/dev/sdb1', 'xfs', '/data'],
  ['tmpfs', 'tmpfs', '/run'],
  ['tmpfs', 'tmpfs', '/dev/shm'],
];
const NICS = ['docker0', 'eth0', 'eth1', 'lo'];
const COLLECTORS = [
  'arp', 'bcache', 'bonding', 'btrfs', 'conntrack', 'cpu', 'cpufreq', 'diskstats', 'dmi', 'edac', 'entropy', 'fibrechannel',
  'filefd', 'filesystem', 'hwmon', 'infiniband', 'ipvs', 'loadavg', 'mdadm', 'meminfo', 'netclass', 'netdev', 'netstat',
  'nfs', 'nfsd', 'nvme', 'os', 'powersupplyclass', 'pressure', 'rapl', 'schedstat', 'selinux', 'sockstat', 'softnet',
  'stat', 'tapestats', 'textfile', 'thermal_zone', 'time', 'timex', 'udp_queues', 'uname', 'vmstat', 'xfs', 'zfs',
];
const GIB_PAGES = 262_144; // 4 KiB pages in a GiB


const one: Array<Array<[string, string]>> = [[]];
const perCpu = (extra: Array<[string, string]> = []) => Array.from({ length: CPUS }, (_, c): Array<[string, string]> => [['cpu', String(c)], ...extra]);
const perDisk = DISKS.map((d): Array<[string, string]> => [['device', d]]);
const perFs = FILESYSTEMS.map(([device, fstype, mountpoint]): Array<[string, string]> => [['device', device], ['fstype', fstype], ['mountpoint', mountpoint]]);
const perNic = NICS.map((d): Array<[string, string]> => [['device', d]]);

/** One host's families; the order is the order of series within a host. */
function hostFamilies(): Family[] {
  const f: Family[] = [];
  // CPU: seconds from /proc/stat ticks (USER_HZ 100), so centiseconds.
  f.push(family('node_cpu_seconds_total', perCpu().flatMap((c) => MODES.map((m): Array<[string, string]> => [...c, ['mode', m]])), Model.Counter, 0.01, 300, 1e8, 1e8));
  f.push(family('node_cpu_guest_seconds_total', perCpu().flatMap((c) => ['nice', 'user'].map((m): Array<[string, string]> => [...c, ['mode', m]])), Model.Counter, 0.01, 0, 0));
  f.push(family('node_cpu_scaling_frequency_hertz', perCpu(), Model.Gauge, 1000, 200_000, 1_200_000, 3_500_000));
  // Disks.
  for (const [name, step, scale] of [
    ['node_disk_reads_completed_total', 400, 1], ['node_disk_writes_completed_total', 900, 1], ['node_disk_reads_merged_total', 20, 1],
    ['node_disk_writes_merged_total', 300, 1], ['node_disk_read_bytes_total', 3_000_000, 512], ['node_disk_written_bytes_total', 9_000_000, 512],
    ['node_disk_io_time_seconds_total', 900, 0.001], ['node_disk_read_time_seconds_total', 300, 0.001], ['node_disk_write_time_seconds_total', 1200, 0.001],
    ['node_disk_io_time_weighted_seconds_total', 1600, 0.001], ['node_disk_discards_completed_total', 0, 1], ['node_disk_discarded_sectors_total', 0, 1],
    ['node_disk_flush_requests_total', 30, 1],
  ] as Array<[string, number, number]>) f.push(family(name, perDisk, Model.Counter, scale, step, 1e7, 1e7));
  f.push(family('node_disk_io_now', perDisk, Model.Gauge, 1, 3, 0, 40));
  f.push(family('node_disk_info', DISKS.map((d, i): Array<[string, string]> => [['device', d], ['major', i < 2 ? '259' : '8'], ['minor', String(i * 16)]]), Model.Constant, 1, 0, 1));
  // Filesystems (statfs: bytes in 4 KiB blocks).
  f.push(family('node_filesystem_avail_bytes', perFs, Model.Gauge, 4096, 500, 40 * GIB_PAGES, 90 * GIB_PAGES));
  f.push(family('node_filesystem_free_bytes', perFs, Model.Gauge, 4096, 500, 45 * GIB_PAGES, 95 * GIB_PAGES));
  f.push(family('node_filesystem_size_bytes', perFs, Model.Constant, 4096, 0, 100 * GIB_PAGES));
  f.push(family('node_filesystem_files', perFs, Model.Constant, 1, 0, 6_553_600));
  f.push(family('node_filesystem_files_free', perFs, Model.Gauge, 1, 40, 6_000_000, 6_500_000));
  f.push(family('node_filesystem_readonly', perFs, Model.Constant, 1, 0, 0));
  f.push(family('node_filesystem_device_error', perFs, Model.Constant, 1, 0, 0));
  // Network.
  for (const dir of ['receive', 'transmit']) {
    for (const [what, step] of [['bytes', 2_000_000], ['packets', 3000], ['errs', 0], ['drop', 1], ['compressed', 0], ['fifo', 0], [dir === 'receive' ? 'frame' : 'colls', 0], [dir === 'receive' ? 'multicast' : 'carrier', 2]] as Array<[string, number]>) {
      f.push(family(`node_network_${dir}_${what}_total`, perNic, Model.Counter, 1, step, 1e9, 1e9));
    }
  }
  f.push(family('node_network_up', perNic, Model.Constant, 1, 0, 1));
  f.push(family('node_network_mtu_bytes', perNic, Model.Constant, 1, 0, 1500));
  f.push(family('node_network_speed_bytes', perNic, Model.Constant, 1, 0, 1_250_000_000));
  f.push(family('node_network_info', NICS.map((d, i): Array<[string, string]> => [['address', `02:42:ac:11:00:0${i}`], ['broadcast', 'ff:ff:ff:ff:ff:ff'], ['device', d], ['duplex', 'full'], ['operstate', 'up']]), Model.Constant, 1, 0, 1));
  // Memory (/proc/meminfo, kB, shown as bytes).
  for (const name of ['Active', 'Active_anon', 'Active_file', 'AnonPages', 'Buffers', 'Cached', 'Committed_AS', 'Dirty', 'Inactive', 'Inactive_anon', 'Inactive_file', 'KernelStack', 'Mapped', 'MemAvailable', 'MemFree', 'PageTables', 'SReclaimable', 'SUnreclaim', 'Shmem', 'Slab', 'SwapCached', 'VmallocUsed', 'Writeback']) {
    f.push(family(`node_memory_${name}_bytes`, one, Model.Gauge, 1024, 20_000, 500_000, 8_000_000));
  }
  for (const [name, v] of [['AnonHugePages', 0], ['Bounce', 0], ['CommitLimit', 8_000_000], ['DirectMap1G', 8_388_608], ['DirectMap2M', 8_200_000], ['DirectMap4k', 180_000], ['HugePages_Free', 0], ['HugePages_Rsvd', 0], ['HugePages_Surp', 0], ['HugePages_Total', 0], ['Hugepagesize', 2048], ['MemTotal', 16_384_000], ['Mlocked', 0], ['NFS_Unstable', 0], ['ShmemHugePages', 0], ['SwapFree', 0], ['SwapTotal', 0], ['Unevictable', 0], ['VmallocChunk', 0], ['VmallocTotal', 34_359_738_367], ['WritebackTmp', 0]] as Array<[string, number]>) {
    f.push(family(`node_memory_${name}_bytes`, one, Model.Constant, 1024, 0, v));
  }
  f.push(family('node_load1', one, Model.Gauge, 0.01, 40, 0, 800));
  f.push(family('node_load5', one, Model.Gauge, 0.01, 15, 0, 800));
  f.push(family('node_load15', one, Model.Gauge, 0.01, 5, 0, 800));
  for (const [name, step] of [['pgfault', 40_000], ['pgmajfault', 3], ['pgpgin', 2000], ['pgpgout', 9000], ['pswpin', 0], ['pswpout', 0], ['oom_kill', 0]] as Array<[string, number]>) {
    f.push(family(`node_vmstat_${name}`, one, Model.Counter, 1, step, 1e8, 1e8));
  }
  for (const [name, step] of [['Tcp_ActiveOpens', 60], ['Tcp_PassiveOpens', 80], ['Tcp_InErrs', 0], ['Tcp_InSegs', 20_000], ['Tcp_OutSegs', 22_000], ['Tcp_RetransSegs', 8], ['Udp_InDatagrams', 400], ['Udp_OutDatagrams', 400], ['Udp_InErrors', 0], ['Udp_NoPorts', 1], ['Icmp_InMsgs', 2], ['Icmp_OutMsgs', 2], ['TcpExt_ListenDrops', 0], ['TcpExt_ListenOverflows', 0], ['TcpExt_SyncookiesSent', 0], ['TcpExt_TCPSynRetrans', 1], ['IpExt_InOctets', 3_000_000], ['IpExt_OutOctets', 4_000_000]] as Array<[string, number]>) {
    f.push(family(`node_netstat_${name}`, one, Model.Counter, 1, step, 1e8, 1e8));
  }
  f.push(family('node_netstat_Tcp_CurrEstab', one, Model.Gauge, 1, 6, 100, 400));
  f.push(family('node_netstat_Ip_Forwarding', one, Model.Constant, 1, 0, 1));
  for (const [name, lo, hi] of [['TCP_inuse', 50, 300], ['TCP_alloc', 60, 320], ['TCP_tw', 0, 500], ['TCP_orphan', 0, 4], ['TCP_mem', 10, 400], ['TCP_mem_bytes', 40_960, 1_638_400], ['UDP_inuse', 2, 20], ['UDP_mem', 0, 40], ['sockets_used', 200, 900], ['FRAG_inuse', 0, 0]] as Array<[string, number, number]>) {
    f.push(family(`node_sockstat_${name}`, one, Model.Gauge, 1, Math.max(1, Math.round((hi - lo) / 50)), lo, hi));
  }
  const perCollector = COLLECTORS.map((c): Array<[string, string]> => [['collector', c]]);
  f.push(family('node_scrape_collector_duration_seconds', perCollector, Model.FloatGauge, 1, 0.0004, 0.00002, 0.02));
  f.push(family('node_scrape_collector_success', perCollector, Model.Constant, 1, 0, 1));
  for (const [name, v] of [['frequency_adjustment_ratio', 1.0000123], ['loop_time_constant', 7], ['maxerror_seconds', 0.5], ['pps_frequency_hertz', 0], ['status', 8193], ['sync_status', 1], ['tai_offset_seconds', 37], ['tick_seconds', 0.01]] as Array<[string, number]>) {
    f.push(family(`node_timex_${name}`, one, Model.Constant, 1, 0, v));
  }
  f.push(family('node_timex_offset_seconds', one, Model.FloatGauge, 1, 0.00002, -0.0005, 0.0005));
  f.push(family('node_timex_estimated_error_seconds', one, Model.FloatGauge, 1, 0.00001, 0, 0.0002));
  f.push(family('node_boot_time_seconds', one, Model.Constant, 1, 0, 1_699_000_000));
  f.push(family('node_time_seconds', one, Model.Clock, 1, 0, 0));
  f.push(family('node_context_switches_total', one, Model.Counter, 1, 150_000, 1e10, 1e10));
  f.push(family('node_intr_total', one, Model.Counter, 1, 90_000, 1e10, 1e10));
  f.push(family('node_forks_total', one, Model.Counter, 1, 300, 1e7, 1e7));
  f.push(family('node_procs_running', one, Model.Gauge, 1, 2, 1, 12));
  f.push(family('node_procs_blocked', one, Model.Gauge, 1, 1, 0, 3));
  f.push(family('node_entropy_available_bits', one, Model.Gauge, 1, 8, 3000, 3900));
  f.push(family('node_filefd_allocated', one, Model.Gauge, 1, 20, 3000, 9000));
  f.push(family('node_filefd_maximum', one, Model.Constant, 1, 0, 9_223_372_036_854_775_807));
  f.push(family('node_uname_info', [[['domainname', '(none)'], ['machine', 'x86_64'], ['release', '6.1.0-13-amd64'], ['sysname', 'Linux'], ['version', '#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)']]], Model.Constant, 1, 0, 1));
  f.push(family('node_os_info', [[['id', 'debian'], ['name', 'Debian GNU/Linux'], ['pretty_name', 'Debian GNU/Linux 12 (bookworm)'], ['version', '12 (bookworm)'], ['version_codename', 'bookworm'], ['version_id', '12']]], Model.Constant, 1, 0, 1));
  f.push(family('node_exporter_build_info', [[['branch', 'debian/sid'], ['goarch', 'amd64'], ['goos', 'linux'], ['goversion', 'go1.19.8'], ['revision', '1.5.0-1+b6'], ['version', '1.5.0']]], Model.Constant, 1, 0, 1));
  const chips: Array<[string, string]> = [['platform_coretemp_0', 'temp1'], ['platform_coretemp_0', 'temp2'], ['platform_coretemp_0', 'temp3'], ['platform_coretemp_0', 'temp4'], ['platform_coretemp_0', 'temp5'], ['pci0000:00_0000:00:1d_0_0000:3d:00_0', 'temp1'], ['acpitz', 'temp1'], ['acpitz', 'temp2']];
  const perSensor = chips.map(([chip, sensor]): Array<[string, string]> => [['chip', chip], ['sensor', sensor]]);
  f.push(family('node_hwmon_temp_celsius', perSensor, Model.Gauge, 0.001, 1000, 35_000, 80_000));
  f.push(family('node_hwmon_temp_crit_celsius', perSensor, Model.Constant, 0.001, 0, 100_000));
  // The exporter's own Go runtime and process.
  f.push(family('go_gc_duration_seconds', ['0', '0.25', '0.5', '0.75', '1'].map((q): Array<[string, string]> => [['quantile', q]]), Model.FloatGauge, 1, 0.00001, 0.00002, 0.002));
  f.push(family('go_gc_duration_seconds_sum', one, Model.FloatCounter, 1, 0.0008, 12.5, 12.5));
  f.push(family('go_gc_duration_seconds_count', one, Model.Counter, 1, 4, 40_000, 40_000));
  f.push(family('go_goroutines', one, Model.Gauge, 1, 1, 7, 12));
  f.push(family('go_threads', one, Model.Constant, 1, 0, 9));
  f.push(family('go_info', [[['version', 'go1.19.8']]], Model.Constant, 1, 0, 1));
  for (const name of ['alloc_bytes', 'heap_alloc_bytes', 'heap_idle_bytes', 'heap_inuse_bytes', 'heap_objects', 'heap_released_bytes', 'mcache_inuse_bytes', 'mspan_inuse_bytes', 'next_gc_bytes', 'stack_inuse_bytes', 'other_sys_bytes']) {
    f.push(family(`go_memstats_${name}`, one, Model.Gauge, 8, 20_000, 200_000, 1_000_000));
  }
  for (const name of ['alloc_bytes_total', 'frees_total', 'mallocs_total', 'lookups_total']) {
    f.push(family(`go_memstats_${name}`, one, Model.Counter, 1, name === 'lookups_total' ? 0 : 400_000, 1e9, 1e9));
  }
  for (const [name, v] of [['buck_hash_sys_bytes', 1_468_976], ['gc_sys_bytes', 8_534_320], ['heap_sys_bytes', 11_567_104], ['mcache_sys_bytes', 15_600], ['mspan_sys_bytes', 146_880], ['stack_sys_bytes', 753_664], ['sys_bytes', 23_942_160]] as Array<[string, number]>) {
    f.push(family(`go_memstats_${name}`, one, Model.Constant, 1, 0, v));
  }
  f.push(family('go_memstats_last_gc_time_seconds', one, Model.FloatCounter, 1, 3.7, 1_699_999_000, 1_699_999_000));
  f.push(family('process_cpu_seconds_total', one, Model.Counter, 0.01, 2, 50_000, 50_000));
  f.push(family('process_max_fds', one, Model.Constant, 1, 0, 1_048_576));
  f.push(family('process_open_fds', one, Model.Gauge, 1, 1, 9, 14));
  f.push(family('process_resident_memory_bytes', one, Model.Gauge, 4096, 200, 5000, 7000));
  f.push(family('process_start_time_seconds', one, Model.Constant, 0.01, 0, 169_900_000_012));
  f.push(family('process_virtual_memory_bytes', one, Model.Gauge, 4096, 100, 180_000, 190_000));
  f.push(family('process_virtual_memory_max_bytes', one, Model.Constant, 1, 0, 18_446_744_073_709_552_000));
  f.push(family('promhttp_metric_handler_requests_in_flight', one, Model.Constant, 1, 0, 1));
  f.push(family('promhttp_metric_handler_requests_total', [[['code', '200']], [['code', '500']], [['code', '503']]], Model.Counter, 1, 0, 100_000, 100_000));
  return f;
}

/** Series on one host (about 500, as a node_exporter with its default collectors on a small server). */
export const SERIES_PER_HOST = seriesPerTarget(hostFamilies());

/**
 * The instance label of host h; a later generation (churn: the host
 * replaced by a new one) has another name.
 */
export function instanceOf(h: number, generation = 0): string {
  const g = generation === 0 ? '' : `-g${generation}`;
  return `node-${String(h).padStart(4, '0')}${g}.dc1.example.internal:9100`;
}

/** Builds the catalogue of the first `count` series (hosts filled one after another). */
export function nodeExporterCatalogue(count: number): Catalogue {
  return buildCatalogue(hostFamilies(), count, (h, generation) => [['instance', instanceOf(h, generation)], ['job', 'node']]);
}
