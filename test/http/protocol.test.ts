// Rules that hold for every route: problem+json errors, 400 malformed JSON,
// 413 over 1 MiB (without reading the rest), 415 non-JSON, 405 with Allow,
// 404 unknown paths, HEAD and OPTIONS, and that a rejected request stores nothing.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call } from './support/http-client.js';
import { assertProblem } from './support/problem.js';
import { chunked, sendUntilAnswered } from './support/raw-http.js';
import { removeDir, startStrata, type StrataProcess } from './support/strata-process.js';

const MiB = 1024 * 1024;
let strata: StrataProcess;
let task: number;
let user: number;
let discussion: number;
const port = () => Number(new URL(strata.base).port);
const api = (method: string, path: string, json?: unknown) => call(strata.base, method, path, json === undefined ? {} : { json });
const send = (method: string, path: string, body: string | Uint8Array, contentType?: string) =>
  call(strata.base, method, path, { body, headers: contentType === undefined ? {} : { 'content-type': contentType } });

/** Every route that takes a JSON body, with a valid body for it. */
function bodyRoutes(): Array<[string, string, () => object]> {
  let n = 0;
  return [
    ['POST', '/api/v1/tasks', () => ({ title: 't' })],
    ['PUT', `/api/v1/tasks/${task}`, () => ({ title: 't' })],
    ['POST', '/api/v1/users', () => ({ name: 'n', email: `u${process.pid}.${Date.now()}.${++n}@example.com` })],
    ['PUT', `/api/v1/users/${user}`, () => ({ name: 'n', email: `fixed.${process.pid}@example.com` })],
    ['POST', '/discussions', () => ({ title: 'd' })],
    ['PUT', `/discussions/${discussion}`, () => ({ title: 'd' })],
    ['PATCH', `/discussions/${discussion}`, () => ({ title: 'd' })],
    ['POST', `/discussions/${discussion}/comments`, () => ({ body: 'c' })],
    ['POST', '/discussions.json', () => ({ title: 'd' })],
    ['PATCH', `/discussions/${discussion}.json`, () => ({ title: 'd' })],
    ['POST', `/discussions/${discussion}/comments.json`, () => ({ body: 'c' })],
  ];
}

/** A snapshot of everything stored, and the next ids, to show nothing changed. */
async function snapshot() {
  const lists = await Promise.all(
    ['/api/v1/tasks?limit=1000', '/api/v1/users?limit=1000', '/discussions?limit=1000', `/discussions/${discussion}/comments?limit=1000`].map(async (p) => (await api('GET', p)).text),
  );
  return lists;
}

before(async () => {
  strata = await startStrata();
  task = (await api('POST', '/api/v1/tasks', { title: 'fixture' })).json.id;
  user = (await api('POST', '/api/v1/users', { name: 'fixture', email: `fixed.${process.pid}@example.com` })).json.id;
  discussion = (await api('POST', '/discussions', { title: 'fixture' })).json.id;
});
after(async () => {
  await strata?.stop();
  if (strata) removeDir(dirname(strata.dataDir));
});

describe('request bodies', () => {
  test('malformed JSON is 400 problem+json on every body route', async () => {
    for (const [method, path] of bodyRoutes()) {
      for (const bad of ['{"title":', '{title: "x"}', '', 'nul', '{"title":"x"} trailing']) {
        assertProblem(await send(method, path, bad, 'application/json'), 400);
      }
    }
  });

  test('a Content-Type that is not JSON is 415 on every body route, and a missing one too', async () => {
    for (const [method, path, valid] of bodyRoutes()) {
      const body = JSON.stringify(valid());
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/jsonx']) {
        assertProblem(await send(method, path, body, type), 415);
      }
      assertProblem(await send(method, path, body), 415);
    }
  });

  test('application/json with a UTF-8 charset and any +json type are accepted', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"', 'application/merge-patch+json', 'application/vnd.strata+json']) {
      const r = await send('POST', '/api/v1/tasks', JSON.stringify({ title: type }), type);
      assert.equal(r.status, 201, `${type}: ${r.text}`);
    }
  });

  test('a body of exactly 1 MiB is accepted; one byte more is 413 on every body route', async () => {
    const json = JSON.stringify({ title: 'big' });
    const exact = json + ' '.repeat(MiB - json.length);
    assert.equal((await send('POST', '/api/v1/tasks', exact, 'application/json')).status, 201);
    for (const [method, path, valid] of bodyRoutes()) {
      const body = JSON.stringify(valid());
      const over = body + ' '.repeat(MiB + 1 - body.length);
      assertProblem(await send(method, path, over, 'application/json'), 413);
    }
  });

  test('413 comes as soon as the headers announce more than 1 MiB, before the body is sent, with Connection: close', async () => {
    const declared = 64 * MiB;
    const head = `POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`;
    const r = await sendUntilAnswered(port(), head, Buffer.alloc(declared, 0x20), 64 * 1024, 10_000);
    assert.equal(r.status, 413);
    assert.equal(r.headers.get('content-type'), 'application/problem+json');
    assert.equal(r.headers.get('connection'), 'close');
    assert.equal(JSON.parse(r.body).status, 413);
    assert.ok(r.bodyBytesWritten < 8 * MiB, `answered after ${r.bodyBytesWritten} of ${declared} body bytes`);
  });

  test('413 for a chunked body comes once 1 MiB has passed, long before the body ends', async () => {
    const head = 'POST /api/v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    const body = chunked(Buffer.alloc(64 * MiB, 0x20), 64 * 1024);
    const r = await sendUntilAnswered(port(), head, body, 64 * 1024 + 10, 10_000);
    assert.equal(r.status, 413);
    assert.equal(r.headers.get('connection'), 'close');
    assert.ok(r.bodyBytesWritten < 12 * MiB, `answered after ${r.bodyBytesWritten} of ${body.length} body bytes`);
  });

  test('a client that keeps sending a 16 MiB body still gets its 413 (no reset under it)', async () => {
    const big = Buffer.alloc(16 * MiB, 0x20);
    for (let i = 0; i < 5; i++) assertProblem(await send('POST', '/api/v1/tasks', big, 'application/json'), 413);
    assert.equal((await api('GET', `/api/v1/tasks/${task}`)).status, 200, 'the server serves on');
  });
});

describe('methods and paths', () => {
  const allow: Array<[string[], string]> = [
    [['/api/v1/tasks', '/api/v1/users', '/discussions', '/discussions.json', '/discussions/1/comments', '/discussions/1/comments.json'], 'GET, HEAD, POST, OPTIONS'],
    [['/api/v1/tasks/1', '/api/v1/users/1'], 'GET, HEAD, PUT, DELETE, OPTIONS'],
    [['/discussions/1', '/discussions/1.json'], 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
    [['/discussions/1/like', '/discussions/1/like.json'], 'POST, OPTIONS'],
  ];

  test('a wrong method on a known path is 405 with an Allow header listing the right ones', async () => {
    for (const [paths, allowed] of allow) {
      for (const path of paths) {
        for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
          if (allowed.split(', ').includes(method)) continue;
          const r = method === 'GET' ? await call(strata.base, method, path) : await send(method, path, '{}', 'application/json');
          assertProblem(r, 405);
          assert.equal(r.headers.get('allow'), allowed, `${method} ${path}`);
        }
      }
    }
  });

  test('OPTIONS answers 204 with Allow; HEAD answers GET’s headers without the body', async () => {
    for (const [paths, allowed] of allow) {
      const r = await call(strata.base, 'OPTIONS', paths[0]!);
      assert.equal(r.status, 204);
      assert.equal(r.headers.get('allow'), allowed);
    }
    const get = await api('GET', `/api/v1/tasks/${task}`);
    const head = await call(strata.base, 'HEAD', `/api/v1/tasks/${task}`);
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(get.text)));
    assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
  });

  test('unknown paths are 404 problem+json', async () => {
    for (const path of ['/', '/api/v1', '/api/v1/', '/api/v1/tasks/', '/api/v1/tasks/1/extra', '/api/v2/tasks', '/discussions/1/likes', '/discussions/1/comments/1', '/tasks', '/api', '/api/openapi.json', '/nope?x=1']) {
      assertProblem(await api('GET', path), 404);
    }
  });

  test('a bad percent-encoding in an id is 400', async () => {
    assertProblem(await api('GET', '/api/v1/tasks/%E0%A4%A'), 400);
  });
});

describe('rejected requests', () => {
  test('rejected requests of every kind store nothing and use up no id', async () => {
    const before = await snapshot();
    const lastTask = (await api('POST', '/api/v1/tasks', { title: 'before' })).json.id;
    const afterCreate = await snapshot();
    for (const [method, path] of bodyRoutes()) {
      await send(method, path, '{"title":', 'application/json');
      await send(method, path, '{"title":"x","body":"x","name":"x"}', 'text/plain');
      await send(method, path, ' '.repeat(MiB + 1), 'application/json');
      await send(method, path, '{"title":"","body":"","name":"","email":"bad","id":0}', 'application/json');
      if (path.startsWith('/discussions')) await send(method, path.replace(/(\.json)?$/, '.xml'), '{"title":"x","body":"x"}', 'application/json');
    }
    await api('POST', '/api/v1/users', { name: 'dup', email: `FIXED.${process.pid}@example.com` });
    await api('POST', '/discussions/987654321/comments', { body: 'x' });
    await api('POST', '/discussions/987654321/like');
    assert.deepEqual(await snapshot(), afterCreate, 'every list is as it was');
    assert.notDeepEqual(before, afterCreate);
    assert.equal((await api('POST', '/api/v1/tasks', { title: 'after' })).json.id, lastTask + 1, 'no task id was used up');
  });
});
