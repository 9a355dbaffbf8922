/**
 * The three servers of the comparison, each on 127.0.0.1 with a fresh data
 * directory under `parent`, started with its defaults except what a
 * loopback benchmark needs:
 *
 * - Strata: `strata serve` (built dist/), worker threads = cores; as
 *   `strata-grpc` the same server, written to over gRPC
 *   (thanos.WriteableStore/RemoteWrite, as a Thanos Receive router writes)
 *   instead of HTTP remote write, and read the same way.
 * - VictoriaMetrics (Debian `victoria-metrics`): single-node, remote write
 *   at /api/v1/write, retention 1 year (the load is hours old).
 * - Prometheus (Debian `prometheus`): no scrape targets,
 *   --web.enable-remote-write-receiver (POST /api/v1/write), remote read at
 *   /api/v1/read on its own TSDB, and the admin API for a snapshot (which
 *   writes the head as a block: Prometheus' compacted form of the same data).
 *
 * `disk()` says, for each, which files hold the data once persisted.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diskUseByEntry, diskUse, sumOf, type DiskUse } from './disk.js';
import { firstLine, freePort, startChild, waitForHttp, waitForLine, type Child } from './processes.js';
import { SERVER_NODE_FLAGS } from '../../config/node-flags.js';

/** The repository (or installed package): src/bench/compare and dist/bench/compare are both three levels down. */
const root = new URL('../../..', import.meta.url).pathname;
/** A server must answer ready within this (Strata replays nothing: fresh directory). */
const START_TIMEOUT_MS = 60_000;
/** A graceful stop flushes (VictoriaMetrics' in-memory parts, Prometheus' WAL); allow for it. */
const STOP_GRACE_MS = 120_000;

export type PeerName = 'strata' | 'strata-grpc' | 'victoriametrics' | 'prometheus';

/** What a data directory holds, as counted for bytes per sample. */
export interface DiskReport {
  /** Everything that holds the data on disk after a clean stop. */
  persisted: DiskUse;
  /** What that is, in words (e.g. "wal + chunks_head"). */
  persistedWhat: string;
  /** Sample data only (chunks), where the server keeps it apart. */
  chunks?: DiskUse;
  chunksWhat?: string;
  /** A compacted block of the same data: chunks and index (Prometheus' snapshot). */
  block?: { chunks: DiskUse; index: DiskUse };
  /** Every top-level entry (for the notes). */
  entries: Map<string, DiskUse>;
}

export interface Peer {
  name: PeerName;
  title: string;
  version: string;
  child: Child;
  base: string;
  /** Where the load goes: an http:// remote-write URL, or grpc://HOST:PORT for RemoteWrite calls. */
  writeUrl: string;
  /** Polled during the load: Strata and Prometheus /-/ready, VictoriaMetrics /health. */
  readyUrl: string;
  /** Scraped before and after the load for a Node.js server's event-loop delay. */
  metricsUrl: string;
  /** Remote read, where the server serves it. */
  readUrl?: string;
  dataDir: string;
  /** Work to do while running, after the reads and before stopping (Prometheus: snapshot). */
  beforeStop(): Promise<void>;
  /** Disk use once stopped. */
  disk(): DiskReport;
}

export function peerTitle(name: PeerName): string {
  switch (name) {
    case 'strata': return 'Strata';
    case 'strata-grpc': return 'Strata (gRPC)';
    case 'victoriametrics': return 'VictoriaMetrics';
    case 'prometheus': return 'Prometheus';
  }
}

export async function startPeer(name: PeerName, parent: string): Promise<Peer> {
  const dataDir = join(parent, name);
  mkdirSync(dataDir, { recursive: true });
  switch (name) {
    case 'strata': return startStrata(dataDir, 'http');
    case 'strata-grpc': return startStrata(dataDir, 'grpc');
    case 'victoriametrics': return startVictoriaMetrics(dataDir);
    case 'prometheus': return startPrometheus(dataDir, parent);
  }
}

/**
 * The version a binary reports; Debian builds of VictoriaMetrics report
 * none, so the package's version is asked then.
 */
function versionOf(command: string, args: string[], pattern: RegExp): string {
  const m = pattern.exec(firstLine(command, args));
  if (m) return m[1]!;
  const r = spawnSync('dpkg-query', ['-W', '-f=${Version}', command], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '' ? `${r.stdout.trim()} (Debian package)` : 'unknown version';
}

async function startStrata(dataDir: string, writeOver: 'http' | 'grpc'): Promise<Peer> {
  const child = startChild('strata serve', process.execPath, [...SERVER_NODE_FLAGS, join(root, 'bin/strata.js'), 'serve', '--data-dir', dataDir, '--http-address', '127.0.0.1:0', '--grpc-address', '127.0.0.1:0', '--log.format', 'json'], { cwd: root });
  const [port, grpcPort] = await waitForLine(child, (line) => {
    if (!line.includes('"strata started"')) return undefined;
    const started = JSON.parse(line) as { httpAddress: string; grpcAddress: string };
    return [Number(started.httpAddress.split(':').pop()), Number(started.grpcAddress.split(':').pop())] as const;
  }, START_TIMEOUT_MS);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${base}/-/ready`, START_TIMEOUT_MS);
  return {
    name: writeOver === 'http' ? 'strata' : 'strata-grpc',
    title: peerTitle(writeOver === 'http' ? 'strata' : 'strata-grpc'),
    version: firstLine(process.execPath, [join(root, 'bin/strata.js'), '--version']),
    child,
    base,
    writeUrl: writeOver === 'http' ? `${base}/api/v1/write` : `grpc://127.0.0.1:${grpcPort}`,
    readyUrl: `${base}/-/ready`,
    metricsUrl: `${base}/metrics`,
    readUrl: `${base}/api/v1/read`,
    dataDir,
    beforeStop: async () => {},
    disk() {
      const entries = diskUseByEntry(dataDir);
      return {
        persisted: sumOf(entries, ['wal', 'chunks_head', 'blocks']),
        // A block is cut only once the head spans 1.5 block ranges (3 h at 2 h blocks).
        persistedWhat: (entries.get('blocks')?.files ?? 0) > 0 ? 'wal + chunks_head + blocks' : 'wal + chunks_head (no block cut yet)',
        chunks: sumOf(entries, ['chunks_head', 'blocks']),
        chunksWhat: 'chunks_head',
        entries,
      };
    },
  };
}

async function startVictoriaMetrics(dataDir: string): Promise<Peer> {
  const port = await freePort();
  const child = startChild('victoria-metrics', 'victoria-metrics', [
    `-storageDataPath=${dataDir}`,
    `-httpListenAddr=127.0.0.1:${port}`,
    '-retentionPeriod=1y',
    '-loggerLevel=WARN',
  ]);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${base}/health`, START_TIMEOUT_MS);
  return {
    name: 'victoriametrics',
    title: 'VictoriaMetrics',
    version: versionOf('victoria-metrics', ['-version'], /v?(\d+\.\d+\.\d+)/),
    child,
    base,
    writeUrl: `${base}/api/v1/write`,
    readyUrl: `${base}/health`,
    metricsUrl: `${base}/metrics`,
    dataDir,
    beforeStop: async () => {
      // Make what it buffers in memory a part on disk (a stop does this too).
      await (await fetch(`${base}/internal/force_flush`, { signal: AbortSignal.timeout(60_000) })).arrayBuffer();
    },
    disk() {
      const entries = diskUseByEntry(dataDir);
      return {
        persisted: sumOf(entries, ['data', 'indexdb']),
        persistedWhat: 'data + indexdb (not cache/, rebuilt on start)',
        chunks: sumOf(entries, ['data']),
        chunksWhat: 'data (its own compression; no separate WAL)',
        entries,
      };
    },
  };
}

async function startPrometheus(dataDir: string, parent: string): Promise<Peer> {
  const port = await freePort();
  const config = join(parent, 'prometheus-receiver.yml');
  // No scrape targets: it holds only what is written to it.
  writeFileSync(config, 'global:\n  scrape_interval: 15s\n');
  const child = startChild('prometheus', 'prometheus', [
    `--config.file=${config}`,
    `--storage.tsdb.path=${dataDir}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--web.enable-remote-write-receiver',
    '--web.enable-admin-api',
    '--log.level=warn',
  ]);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(child, `${base}/-/ready`, START_TIMEOUT_MS);
  let snapshotDir: string | undefined;
  return {
    name: 'prometheus',
    title: 'Prometheus',
    version: versionOf('prometheus', ['--version'], /version (\S+)/),
    child,
    base,
    writeUrl: `${base}/api/v1/write`,
    readyUrl: `${base}/-/ready`,
    metricsUrl: `${base}/metrics`,
    readUrl: `${base}/api/v1/read`,
    dataDir,
    async beforeStop() {
      // The snapshot writes the head as a block (chunks + index), as compaction would two hours on.
      const res = await fetch(`${base}/api/v1/admin/tsdb/snapshot`, { method: 'POST', signal: AbortSignal.timeout(300_000) });
      const body = (await res.json()) as { status: string; data?: { name: string } };
      if (res.status !== 200 || body.data === undefined) throw new Error(`prometheus snapshot: ${res.status} ${JSON.stringify(body)}`);
      snapshotDir = join(dataDir, 'snapshots', body.data.name);
    },
    disk() {
      const entries = diskUseByEntry(dataDir);
      const live = [...entries.keys()].filter((n) => n !== 'snapshots' && n !== 'queries.active' && n !== 'lock');
      let block: DiskReport['block'];
      if (snapshotDir !== undefined) {
        const blocks = readdirSync(snapshotDir);
        block = { chunks: { allocated: 0, apparent: 0, files: 0 }, index: { allocated: 0, apparent: 0, files: 0 } };
        for (const b of blocks) {
          for (const [k, u] of [['chunks', diskUse(join(snapshotDir, b, 'chunks'))], ['index', diskUse(join(snapshotDir, b, 'index'))]] as const) {
            block[k].allocated += u.allocated;
            block[k].apparent += u.apparent;
            block[k].files += u.files;
          }
        }
      }
      return {
        persisted: sumOf(entries, live),
        persistedWhat: `${live.join(' + ')} (not snapshots/, queries.active)`,
        chunks: sumOf(entries, ['chunks_head']),
        chunksWhat: 'chunks_head',
        ...(block ? { block } : {}),
        entries,
      };
    },
  };
}
