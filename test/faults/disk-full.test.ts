/**
 * A full disk, run as a user would meet it: `strata serve` on a small
 * tmpfs, writes until the disk is full, then space freed. Writes are
 * refused cleanly while full (503, nothing of them visible), readiness
 * says so, every acknowledged sample reads back exactly once, and writes
 * resume by themselves once space returns: also after SIGTERM and after
 * kill -9 while full. Needs root to mount the tmpfs; skips elsewhere.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { decodeReadResponse, postRead, postWrite, samples, type Series } from '../http/prometheus/support/prom-wire.js';
import { serve, stopAll, type Served } from '../http/prometheus/support/serve.js';
import { freeFiller, mountTmpfs, type Tmpfs } from './support/tmpfs.js';
import { StoreClient, grpc } from '../store/support/client.js';
import { writeFails } from '../store/support/calls.js';

const SERIES = 200;
const T0 = 1_700_000_000_000;
/** Request r writes one sample per series at T0 + r * STEP, of value r. */
const STEP = 1000;
const mounted = mountTmpfs('48m');
const skip = typeof mounted === 'string' ? mounted : false;

function request(r: number): Series[] {
  return Array.from({ length: SERIES }, (_, i) => ({
    labels: [['__name__', 'fill'], ['i', String(i)], ['pad', 'x'.repeat(40)]] as const,
    samples: samples(1, T0 + r * STEP, 1, () => r),
  }));
}

/** Every sample of job "fill" by series: the request numbers found, in time order. */
async function readAll(base: string): Promise<Map<string, number[]>> {
  const res = await postRead(base, [{ matchers: [[0, '__name__', 'fill']], start: T0 - 1, end: T0 + 10_000 * STEP }]);
  assert.equal(res.status, 200, res.body.toString());
  const out = new Map<string, number[]>();
  for (const s of decodeReadResponse(res.body)[0]!) {
    const i = s.labels.find(([n]) => n === 'i')![1];
    out.set(i, s.samples.map((x) => (x.t - T0) / STEP));
  }
  return out;
}

/** Asserts every series holds exactly the acknowledged requests, once each. */
async function assertExactly(base: string, acked: readonly number[]): Promise<void> {
  const got = await readAll(base);
  const want = [...acked].sort((a, b) => a - b);
  assert.equal(got.size, want.length > 0 ? SERIES : 0);
  for (const [i, rs] of got) assert.deepEqual(rs, want, `series i=${i}`);
}

async function ready(base: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}/-/ready`);
  return { status: res.status, text: await res.text() };
}

async function waitReady(base: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await ready(base);
    if (r.status === 200) return;
    if (Date.now() > until) assert.fail(`not ready after ${timeoutMs} ms: ${r.text}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function metric(base: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('a full disk', { skip }, () => {
  const fs = mounted as Tmpfs;
  const dataDir = join(fs.dir, 'data');
  const acked: number[] = [];
  let next = 0;
  let server: Served;

  /** Writes requests until one is refused (at most `max`); returns the refusal's status and text. */
  async function writeUntilRefused(max: number): Promise<{ status: number; text: string }> {
    for (let k = 0; k < max; k++) {
      const r = next++;
      const res = await postWrite(server.base, request(r));
      if (res.status === 204 || res.status === 200) acked.push(r);
      else return { status: res.status, text: res.text };
    }
    assert.fail(`no write refused in ${max} requests`);
  }

  /** Frees the filler: writes resume without a restart, and the one written then reads back with the rest. */
  async function resumesOnceFreed(filler: string): Promise<void> {
    freeFiller(filler);
    await waitReady(server.base, 10_000);
    const w = next++;
    assert.equal((await postWrite(server.base, request(w))).status, 204);
    acked.push(w);
    await assertExactly(server.base, acked);
  }

  before(async () => {
    server = await serve({ dataDir, args: ['--disk-reserve', '2MiB', '--wal-fsync-interval', '0s'] });
  });
  after(async () => {
    await stopAll();
    if (typeof mounted !== 'string') mounted.unmount();
  });

  it('refuses writes with 503 once full, keeps every acknowledged sample readable, and says so in /-/ready and /metrics', async (t) => {
    for (let k = 0; k < 5; k++) {
      const r = next++;
      assert.equal((await postWrite(server.base, request(r))).status, 204);
      acked.push(r);
    }
    const filler = fs.fill();
    const refused = await writeUntilRefused(50);
    assert.equal(refused.status, 503);
    assert.match(refused.text, /disk full/);
    const r = await ready(server.base);
    assert.equal(r.status, 503);
    assert.match(r.text, /not ready: disk full/);
    assert.equal(await metric(server.base, 'strata_storage_writable'), 0);
    // Later writes are refused before they touch anything, over gRPC too (a Receive router's RemoteWrite).
    const again = next++;
    assert.equal((await postWrite(server.base, request(again))).status, 503);
    const { grpcAddress } = await server.started();
    const client = new StoreClient(grpcAddress);
    const viaGrpc = next++;
    const answer = await writeFails(client, {
      timeseries: request(viaGrpc).map((s) => ({ labels: s.labels, samples: [{ t: BigInt(T0 + viaGrpc * STEP), v: viaGrpc }] })),
    });
    client.close();
    assert.equal(answer.code, grpc.status.UNAVAILABLE, answer.details);
    assert.match(answer.details, /disk full/);
    await assertExactly(server.base, acked);

    freeFiller(filler);
    const freed = Date.now();
    await waitReady(server.base, 10_000);
    t.diagnostic(`writes resumed ${Date.now() - freed} ms after space was freed`);
    assert.equal(await metric(server.base, 'strata_storage_writable'), 1);
    for (let k = 0; k < 3; k++) {
      const w = next++;
      assert.equal((await postWrite(server.base, request(w))).status, 204);
      acked.push(w);
    }
    await assertExactly(server.base, acked);
  });

  it('the JSON resources: a create on a full disk gets 503 naming it, nothing of it is stored, and creates work again once space is freed', async () => {
    const post = (title: string) => fetch(`${server.base}/discussions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title, body: 'y'.repeat(2000) }) });
    const created: number[] = [];
    let refused: Response | undefined;
    let filler: string | undefined;
    for (let k = 0; k < 2000 && refused === undefined; k++) {
      if (k === 3) filler = fs.fill();
      const res = await post(`d${k}`);
      if (res.status === 201) created.push(((await res.json()) as { id: number }).id);
      else refused = res;
    }
    assert.ok(refused !== undefined && filler !== undefined, 'no create was refused on a full disk');
    assert.equal(refused.status, 503);
    assert.match(await refused.text(), /could not be written \(ENOSPC\)/);
    const list = (await (await fetch(`${server.base}/discussions?limit=1000`)).json()) as unknown[] | { items?: unknown[] };
    const count = Array.isArray(list) ? list.length : (list.items ?? []).length;
    assert.equal(count, created.length);
    freeFiller(filler);
    await waitReady(server.base, 10_000);
    assert.equal((await post('after')).status, 201);
  });

  it('after SIGTERM while full, a restart on the full disk serves every acknowledged sample and resumes writes once space is freed', async () => {
    const filler = fs.fill();
    await writeUntilRefused(50);
    assert.equal(await server.stop(), 0);
    server = await serve({ dataDir, args: ['--disk-reserve', '2MiB'] });
    await assertExactly(server.base, acked);
    assert.equal((await ready(server.base)).status, 503);
    assert.equal((await postWrite(server.base, request(next++))).status, 503);
    await resumesOnceFreed(filler);
  });

  it('after kill -9 while full, a restart (no SIGBUS) serves every acknowledged sample and resumes writes once space is freed', async () => {
    const filler = fs.fill();
    await writeUntilRefused(50);
    server.child.kill('SIGKILL');
    await new Promise((resolve) => server.child.once('exit', resolve));
    server = await serve({ dataDir, args: ['--disk-reserve', '2MiB'] });
    await assertExactly(server.base, acked);
    await resumesOnceFreed(filler);
    assert.equal(await server.stop(), 0);
  });
});

