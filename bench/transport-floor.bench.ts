// npm run bench:transport-floor — what a remote-write call costs the server
// in its transport alone, gRPC against HTTP, with nothing stored: the same
// request bodies sent as thanos.WriteableStore/RemoteWrite calls to a
// grpc-js server whose RemoteWrite streams raw-unary.ts takes (the
// production path, windows widened as src/grpc/server.ts does, a handler
// that resolves at once), and as HTTP/1.1 POSTs to uWebSockets.js (the
// body read whole, 204 answered, corked, as the HTTP route answers). The
// clients are `strata bench remote-write`'s own (grpc-call.ts, post.ts),
// 4 calls in flight. Each server is a child process; its CPU (user +
// system, all threads, from /proc) is taken from the end of the warm-up
// to the last answer, and divided by the calls. Rounds alternate uWS and
// gRPC. This is the floor under issue 26's gap between gRPC and HTTP
// remote write: whatever the store does is the same on both paths.
//
// Env: BENCH_CALLS (6000 measured calls a round), BENCH_WARMUP (1000),
// BENCH_BODY_BYTES (11500: a 500-series request of the node-exporter
// load, snappy-compressed), BENCH_ROUNDS (2).
import { randomFillSync } from 'node:crypto';
import { cpuSeconds } from './compare/proc.js';
import { startChild, waitForLine, type Child } from './compare/processes.js';
import { loadText } from './support/load-average.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 6000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const BODY_BYTES = Number(process.env.BENCH_BODY_BYTES ?? 11_500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const IN_FLIGHT = 4;
const TIMEOUT_MS = 30_000;
/** A child must be listening within this. */
const START_TIMEOUT_MS = 30_000;

type Transport = 'grpc' | 'uws';

/** The server side, run in a child: listens on 127.0.0.1, prints its port, serves until killed. */
async function serve(transport: Transport): Promise<void> {
  if (transport === 'uws') {
    const { uws } = await import('../src/http/uws.js');
    uws().App().post('/api/v1/write', (res) => {
      let aborted = false;
      res.onAborted(() => { aborted = true; });
      res.onData((_chunk, last) => {
        if (last) setImmediate(() => { if (!aborted) res.cork(() => res.writeStatus('204 No Content').end()); });
      });
    }).listen('127.0.0.1', 0, (socket) => {
      if (socket === false) throw new Error('uWebSockets.js could not listen on 127.0.0.1');
      console.log(uws().us_socket_local_port(socket));
    });
    return;
  }
  const grpc = await import('@grpc/grpc-js');
  const { takeUnaryStreams } = await import('../src/grpc/raw-unary.js');
  const { WriteableStoreService } = await import('../src/gen/thanos/store/rpc.js');
  const { widenStreamWindows, widenConnectionWindows } = await import('../src/grpc/flow-control.js');
  const server = new grpc.Server();
  widenStreamWindows(server);
  const port = await new Promise<number>((done, fail) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? fail(err) : done(p))));
  widenConnectionWindows(server);
  const missing = takeUnaryStreams(server, { path: WriteableStoreService.remoteWrite.path, maxRecvBytes: -1, handle: () => Promise.resolve(), statusOf: () => ({ code: grpc.status.INTERNAL, details: 'unexpected' }) });
  if (missing.length > 0) throw new Error(`raw-unary.ts cannot take the streams: ${missing.join(', ')}`);
  console.log(port);
}

/** user + system CPU of process `pid`, all threads, in µs. */
const processCpuUs = (pid: number): number => cpuSeconds(pid) * 1e6;

/** This file run as the `transport` server; resolves with it once it printed its port. */
async function startServer(transport: Transport): Promise<{ child: Child; port: number }> {
  const child = startChild(`${transport} server`, process.execPath, [...process.execArgv, new URL(import.meta.url).pathname], { env: { ...process.env, BENCH_SERVE: transport } });
  try {
    return { child, port: await waitForLine(child, (line) => (/^\d+$/.test(line.trim()) ? Number(line.trim()) : undefined), START_TIMEOUT_MS) };
  } catch (err) {
    child.process.kill('SIGKILL');
    throw err;
  }
}

async function round(transport: Transport, bodies: { grpc: Buffer; http: Buffer }): Promise<{ serverUs: number; clientUs: number; perSecond: number }> {
  const { child, port } = await startServer(transport);
  const { GrpcWriteConnection } = await import('../src/bench/remote-write/grpc-call.js');
  const { makeAgent, post, REMOTE_WRITE_HEADERS } = await import('../src/bench/remote-write/post.js');
  const url = new URL(transport === 'grpc' ? `grpc://127.0.0.1:${port}` : `http://127.0.0.1:${port}/api/v1/write`);
  const connection = transport === 'grpc' ? new GrpcWriteConnection(url, undefined, { 'grpc-encoding': 'snappy' }) : undefined;
  const agent = makeAgent(url, IN_FLIGHT);
  const call = () => (connection !== undefined ? connection.write(bodies.grpc, TIMEOUT_MS) : post(agent, url, REMOTE_WRITE_HEADERS, bodies.http, TIMEOUT_MS));
  let sent = 0;
  let failed = 0;
  const total = WARMUP + CALLS;
  let marks: { server: number; client: NodeJS.CpuUsage; t: number } | undefined;
  const loop = async (): Promise<void> => {
    while (sent < total) {
      if (++sent === WARMUP + 1) marks = { server: processCpuUs(child.pid), client: process.cpuUsage(), t: performance.now() };
      const { outcome } = await call();
      if (outcome.kind !== 'ok') failed++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  const serverUs = processCpuUs(child.pid) - marks!.server;
  const client = process.cpuUsage(marks!.client);
  const seconds = (performance.now() - marks!.t) / 1000;
  connection?.destroy();
  agent.destroy();
  child.process.kill('SIGKILL');
  if (failed > 0) throw new Error(`${failed} ${transport} calls failed`);
  return { serverUs: serverUs / CALLS, clientUs: (client.user + client.system) / CALLS, perSecond: CALLS / seconds };
}

async function main(): Promise<void> {
  const http = randomFillSync(Buffer.alloc(BODY_BYTES));
  // gRPC's length-prefixed message (compressed flag 1: grpc-encoding snappy), the same bytes behind it.
  const grpcBody = Buffer.alloc(5 + BODY_BYTES);
  grpcBody[0] = 1;
  grpcBody.writeUInt32BE(BODY_BYTES, 1);
  http.copy(grpcBody, 5);
  console.log(`transport floor: ${CALLS} calls a round after ${WARMUP} of warm-up, ${BODY_BYTES}-byte bodies, ${IN_FLIGHT} in flight, load ${loadText()}`);
  console.log('round  transport                     server µs CPU a call  client µs CPU a call  calls/s');
  for (let r = 1; r <= ROUNDS; r++) {
    for (const transport of ['uws', 'grpc'] as const) {
      const x = await round(transport, { grpc: grpcBody, http });
      const name = transport === 'grpc' ? 'gRPC (node:http2, raw-unary)' : 'HTTP/1.1 (uWebSockets.js)';
      console.log(`${String(r).padEnd(6)} ${name.padEnd(29)} ${x.serverUs.toFixed(1).padStart(20)}  ${x.clientUs.toFixed(1).padStart(20)}  ${Math.round(x.perSecond).toString().padStart(7)}`);
    }
  }
  console.log(`load after: ${loadText()}`);
}

const role = process.env.BENCH_SERVE;
if (role === 'grpc' || role === 'uws') await serve(role);
else await main();
