// What survives: a graceful restart, kill -9 right after a 201, a torn tail
// in the last records segment, and requests in flight when SIGTERM comes.
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { call } from './support/http-client.js';
import { removeDir, startStrata, tempDir, type StrataProcess } from './support/strata-process.js';

const running: StrataProcess[] = [];
const dirs: string[] = [];

async function start(dataDir?: string): Promise<StrataProcess> {
  const s = await startStrata(dataDir === undefined ? {} : { dataDir });
  running.push(s);
  if (dataDir === undefined) dirs.push(dirname(s.dataDir));
  return s;
}

after(async () => {
  for (const s of running) if (s.child.exitCode === null && s.child.signalCode === null) await s.kill9();
  for (const d of dirs) removeDir(d);
});

const api = (s: StrataProcess, method: string, path: string, json?: unknown) => call(s.base, method, path, json === undefined ? {} : { json });

/** The newest segment file of the record store (names sort by number). */
function lastSegment(dataDir: string): string {
  const dir = join(dataDir, 'records');
  const files = readdirSync(dir).filter((f) => !f.endsWith('.tmp')).sort();
  assert.ok(files.length > 0, `segment files in ${dir}`);
  return join(dir, files.at(-1)!);
}

/** Everything a client can list, for comparing before and after. */
async function everything(s: StrataProcess) {
  const [tasks, users, discussions] = await Promise.all(
    ['/api/v1/tasks?limit=1000', '/api/v1/users?limit=1000', '/discussions?limit=1000'].map(async (p) => (await api(s, 'GET', p)).json),
  );
  const comments = await Promise.all(discussions.map(async (d: { id: number }) => (await api(s, 'GET', `/discussions/${d.id}/comments?limit=1000`)).json));
  return { tasks, users, discussions, comments };
}

async function populate(s: StrataProcess) {
  for (let i = 0; i < 5; i++) await api(s, 'POST', '/api/v1/tasks', { title: `task ${i}`, completed: i % 2 === 0 });
  await api(s, 'DELETE', '/api/v1/tasks/5');
  await api(s, 'POST', '/api/v1/users', { name: 'Ada', email: 'Ada@Example.com' });
  const d = (await api(s, 'POST', '/discussions', { title: 'kept' })).json;
  await api(s, 'POST', `/discussions/${d.id}/comments`, { body: 'first' });
  await api(s, 'POST', `/discussions/${d.id}/comments`, { body: 'second' });
  await api(s, 'POST', `/discussions/${d.id}/like`);
  return d.id as number;
}

describe('durability', () => {
  test('a restart after SIGTERM keeps every record, the id counters, the email and comment indexes', async () => {
    const first = await start();
    const discussion = await populate(first);
    const before = await everything(first);
    assert.equal(await first.stop(), 0, 'SIGTERM exits 0');

    const second = await start(first.dataDir);
    assert.deepEqual(await everything(second), before);
    assert.equal((await api(second, 'POST', '/api/v1/tasks', { title: 'next' })).json.id, 6, 'deleted id 5 is not reused');
    assert.equal((await api(second, 'POST', '/api/v1/users', { name: 'dup', email: 'ada@example.COM' })).status, 409);
    assert.equal((await api(second, 'DELETE', `/discussions/${discussion}`)).status, 204);
    assert.equal((await api(second, 'GET', `/discussions/${discussion}/comments`)).status, 404);
    await second.stop();
    const third = await start(first.dataDir);
    assert.deepEqual((await everything(third)).discussions, [], 'the cascade delete is durable');
    await third.stop();
  });

  test('kill -9 right after 201 answers keeps every acknowledged record', async () => {
    const first = await start();
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => api(first, 'POST', '/api/v1/tasks', { title: `durable ${i}` })));
    await first.kill9();
    const acknowledged = answers.filter((a) => a.status === 201).map((a) => a.json);
    assert.equal(acknowledged.length, 30);
    const second = await start(first.dataDir);
    for (const task of acknowledged) assert.deepEqual((await api(second, 'GET', `/api/v1/tasks/${task.id}`)).json, task);
    await second.stop();
  });

  test('kill -9 with writes racing it: every 201 answered is on disk', async () => {
    const first = await start();
    const acknowledged: Array<{ id: number; title: string }> = [];
    let stop = false;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; !stop && i < 1000; i++) {
        try {
          const r = await api(first, 'POST', '/api/v1/tasks', { title: `w${w}-${i}` });
          if (r.status === 201) acknowledged.push(r.json);
        } catch {
          return; // the server is gone
        }
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    await first.kill9();
    stop = true;
    await Promise.all(writers);
    assert.ok(acknowledged.length > 0);
    const second = await start(first.dataDir);
    const stored = new Map((await api(second, 'GET', '/api/v1/tasks?limit=1000')).json.map((t: { id: number }) => [t.id, t]));
    for (const task of acknowledged) assert.deepEqual(stored.get(task.id), task, `acknowledged task ${task.id}`);
    await second.stop();
  });

  const tornTails: Array<{ what: string; tail: Buffer; todo?: string }> = [
    {
      what: 'a partial record (a frame header announcing more than follows)',
      tail: Buffer.concat([Buffer.from([0x12, 0x34, 0x56, 0x78, 0x00, 0x01, 0x00, 0x00]), Buffer.from('{"id":99,"title":"torn')]),
    },
    { what: 'random bytes', tail: Buffer.from([0x9e, 0x21, 0x07, 0xc4, 0x40, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03]) },
    {
      what: 'text garbage',
      tail: Buffer.from('this is not a record at all, garbage garbage garbage'),
    },
  ];
  for (const { what, tail, todo } of tornTails) {
    test(`a torn tail of ${what} in the last segment is cut off on start; every record stays`, todo === undefined ? {} : { todo }, async () => {
      const first = await start();
      await populate(first);
      const before = await everything(first);
      assert.equal(await first.stop(), 0);
      appendFileSync(lastSegment(first.dataDir), tail);

      const second = await start(first.dataDir);
      assert.deepEqual(await everything(second), before);
      const next = await api(second, 'POST', '/api/v1/tasks', { title: 'after the tear' });
      assert.equal(next.status, 201);
      assert.equal(next.json.id, 6);
      assert.equal(await second.stop(), 0);
      const third = await start(first.dataDir);
      assert.deepEqual((await api(third, 'GET', '/api/v1/tasks/6')).json, next.json, 'writes after recovery survive another restart');
      await third.stop();
    });
  }

  test('SIGTERM lets requests in flight finish: each gets its answer, each 201 is kept, exit 0', async () => {
    const first = await start();
    const inFlight = Array.from({ length: 50 }, (_, i) => api(first, 'POST', '/api/v1/tasks', { title: `in flight ${i}` }).catch(() => undefined));
    await new Promise((r) => setImmediate(r));
    const exited = first.stop();
    const answers = await Promise.all(inFlight);
    assert.equal(await exited, 0);
    const created = answers.filter((a) => a?.status === 201).map((a) => a!.json);
    const second = await start(first.dataDir);
    for (const task of created) assert.deepEqual((await api(second, 'GET', `/api/v1/tasks/${task.id}`)).json, task);
    await second.stop();
  });
});
