// npm run bench:write-path — how far one remote write travels through src/:
// the folders on the call stack when its WAL record is written, and the
// files and folders whose functions ran for it, on the event loop and in
// the pool's worker (V8's precise coverage, counters reset after warm-up
// writes). Over HTTP remote write 1.0 and gRPC RemoteWrite, for series the
// store already holds (the steady state) and for new series. Only the
// public library, HTTP and gRPC are used, so it runs on any version of the
// tree.
//
// usage: npm run bench:write-path [-- --series N]
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { compressSync } from 'snappy';
import { Strata } from '../src/index.js';
import { Wal } from '../src/wal/wal.js';
import { WriteRequest as PromWriteRequest } from '../src/gen/prometheus/remote.js';
import { WriteRequest as ThanosWriteRequest } from '../src/gen/thanos/store/rpc.js';

const { values } = parseArgs({ options: { series: { type: 'string', default: '100' } } });
const SERIES = Number(values.series);
const src = fileURLToPath(new URL('../src/', import.meta.url));

let stackAtWal: string | undefined;
let watchWal = false;
const walAppend = Wal.prototype.append;
Wal.prototype.append = function (this: Wal, ...args: Parameters<Wal['append']>) {
  if (watchWal && stackAtWal === undefined) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 200;
    stackAtWal = new Error().stack;
    Error.stackTraceLimit = limit;
  }
  return walAppend.apply(this, args);
};

function timeseries(name: string, t: number): { labels: { name: string; value: string }[]; samples: { value: number; timestamp: bigint }[] }[] {
  return Array.from({ length: SERIES }, (_, i) => ({
    labels: [{ name: '__name__', value: name }, { name: 'instance', value: `host-${i}` }, { name: 'job', value: 'node' }],
    samples: [{ value: i, timestamp: BigInt(t) }],
  }));
}

const promBody = (name: string, t: number): Buffer =>
  compressSync(Buffer.from(PromWriteRequest.encode({ timeseries: timeseries(name, t).map((s) => ({ ...s, exemplars: [], histograms: [] })), metadata: [] }).finish()));
const thanosBody = (name: string, t: number): Buffer =>
  Buffer.from(ThanosWriteRequest.encode({ timeseries: timeseries(name, t).map((s) => ({ ...s, exemplars: [], histograms: [] })), tenant: '', replica: 0n }).finish());

/** Folders of src/ on the call stack at the WAL write, outermost first, ending in wal (Wal.append's own). */
function stackFolders(stack: string | undefined): string[] {
  const out: string[] = [];
  for (const line of (stack ?? '').split('\n').slice(2).reverse()) {
    const m = /\((?:file:\/\/)?([^():]+\.ts):\d+:\d+\)|at (?:async )?(?:file:\/\/)?([^():\s]+\.ts):\d+:\d+/.exec(line);
    const file = m?.[1] ?? m?.[2];
    if (file === undefined || !file.startsWith(src)) continue;
    const folder = relative(src, file).split('/')[0]!;
    if (out[out.length - 1] !== folder) out.push(folder);
  }
  if (out[out.length - 1] !== 'wal') out.push('wal');
  return out;
}

interface Coverage { result: { url: string; functions: { ranges: { count: number }[] }[] }[] }

const folderOf = (file: string): string => file.split('/')[0]!;
const foldersOf = (files: string[]): string => {
  const folders = [...new Set(files.map(folderOf))].sort();
  return `${folders.length}: ${folders.join(', ')}`;
};

/** A session on the pool's one worker thread (NodeWorker domain): post() as on the main thread. */
async function attachWorker(main: Session): Promise<{ post(method: string, params?: object): Promise<unknown> }> {
  // Other threads attach too (a module loader's): the pool's runs piscina's worker.
  const attached = new Promise<string>((resolve) => {
    main.on('NodeWorker.attachedToWorker', (m) => {
      const p = m.params as { sessionId: string; workerInfo: { url: string } };
      if (p.workerInfo.url.includes('piscina')) resolve(p.sessionId);
    });
  });
  await main.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
  const sessionId = await attached;
  let next = 1;
  const waiting = new Map<number, (r: unknown) => void>();
  main.on('NodeWorker.receivedMessageFromWorker', (m) => {
    const msg = JSON.parse((m.params as { message: string }).message) as { id?: number; result?: unknown; error?: unknown };
    if (msg.id === undefined) return;
    waiting.get(msg.id)?.(msg.error === undefined ? msg.result : Promise.reject(new Error(JSON.stringify(msg.error))));
    waiting.delete(msg.id);
  });
  return {
    post: (method, params = {}) => new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      void main.post('NodeWorker.sendMessageToWorker', { sessionId, message: JSON.stringify({ id, method, params }) });
    }),
  };
}

/** src/ files (gen/ left out) with a function that ran since the counters were last reset. */
function filesRun(cov: Coverage): string[] {
  const files: string[] = [];
  for (const script of cov.result) {
    const path = script.url.startsWith('file://') ? fileURLToPath(script.url) : script.url;
    if (!path.startsWith(src) || path.startsWith(join(src, 'gen'))) continue;
    if (script.functions.some((f) => f.ranges[0]!.count > 0 && f.ranges.length > 0)) files.push(relative(src, path));
  }
  return files.sort();
}

const dataDir = mkdtempSync(join(tmpdir(), 'strata-write-path-'));
const store = await Strata.open({ dataDir, httpAddress: '127.0.0.1:0', grpcAddress: '127.0.0.1:0', workers: 1 });
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
// The pool's worker: its own isolate, reached through the NodeWorker domain.
const worker = await attachWorker(session);
await worker.post('Profiler.enable');
await worker.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
const http = store.listening.http!.address;
const Client = grpc.makeGenericClientConstructor({
  RemoteWrite: {
    path: '/thanos.WriteableStore/RemoteWrite', requestStream: false, responseStream: false,
    requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b,
  },
}, 'WriteableStore');
const client = new Client(store.listening.grpc!.address, grpc.credentials.createInsecure()) as unknown as {
  RemoteWrite(req: Buffer, cb: (err: grpc.ServiceError | null) => void): void;
  close(): void;
};

const viaHttp = async (body: Buffer): Promise<void> => {
  const r = await fetch(`http://${http}/api/v1/write`, {
    method: 'POST', body, headers: { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'snappy', 'X-Prometheus-Remote-Write-Version': '0.1.0' },
  });
  if (r.status !== 204) throw new Error(`remote write answered ${r.status}: ${await r.text()}`);
};
const viaGrpc = (body: Buffer): Promise<void> => new Promise((done, fail) => client.RemoteWrite(body, (err) => (err ? fail(err) : done())));

let t = 1_700_000_000_000;
const rows: string[] = [];
for (const [how, send, body] of [['HTTP', viaHttp, promBody], ['gRPC', viaGrpc, thanosBody]] as const) {
  for (const kind of ['known series', 'new series'] as const) {
    const name = `path_${how}_${kind === 'known series' ? 'known' : 'new'}`;
    // Warm-up: the series exist (for 'known series') and every code path has run once.
    for (let i = 0; i < 3; i++) await send(body(kind === 'known series' ? name : `${name}_warm${i}`, t += 1000));
    await session.post('Profiler.takePreciseCoverage');
    await worker.post('Profiler.takePreciseCoverage');
    stackAtWal = undefined;
    watchWal = true;
    await send(body(kind === 'known series' ? name : `${name}_fresh`, t += 1000));
    watchWal = false;
    const files = filesRun(await session.post('Profiler.takePreciseCoverage') as unknown as Coverage);
    const workerFiles = filesRun(await worker.post('Profiler.takePreciseCoverage') as Coverage);
    const all = [...new Set([...files, ...workerFiles])].sort();
    const stack = stackFolders(stackAtWal);
    rows.push(`| ${how} | ${kind} | ${stack.length}: ${stack.join(' → ')} | ${files.length} | ${foldersOf(files)} | ${workerFiles.length} | ${foldersOf(workerFiles)} | ${all.length} in ${new Set(all.map(folderOf)).size} |`);
    if (process.env.WRITE_PATH_FILES === '1') console.error(`${how}, ${kind}:\n  event loop: ${files.join(' ')}\n  worker: ${workerFiles.join(' ')}`);
  }
}
client.close();
await session.post('Profiler.stopPreciseCoverage');
session.disconnect();
await store.close();
rmSync(dataDir, { recursive: true, force: true });

console.log(`One remote write of ${SERIES} series, one sample each: the folders of src/ on the call stack when its WAL record is written, and the files of src/ whose functions ran for it, on the event loop and in the pool's worker (which parses it):\n`);
console.log('| via | series | stack at the WAL write | event loop: files | folders | worker: files | folders | in all |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
