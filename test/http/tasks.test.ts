// Tasks under /api/v1/tasks, black-box against `strata serve`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call } from './support/http-client.js';
import { assertProblem } from './support/problem.js';
import { removeDir, startStrata, type StrataProcess } from './support/strata-process.js';
import { dirname } from 'node:path';

let strata: StrataProcess;
const api = (method: string, path: string, json?: unknown) => call(strata.base, method, path, json === undefined ? {} : { json });

before(async () => {
  strata = await startStrata();
});
after(async () => {
  await strata?.stop();
  if (strata) removeDir(dirname(strata.dataDir));
});

describe('tasks', () => {
  test('POST creates a task: 201, the task, Location, completed defaults to false', async () => {
    const r = await api('POST', '/api/v1/tasks', { title: 'Write the report' });
    assert.equal(r.status, 201);
    assert.match(r.headers.get('content-type')!, /^application\/json/);
    assert.equal(r.json.title, 'Write the report');
    assert.equal(r.json.completed, false);
    assert.ok(Number.isInteger(r.json.id) && r.json.id > 0);
    assert.deepEqual(Object.keys(r.json), ['id', 'title', 'completed']);
    assert.equal(r.headers.get('location'), `/api/v1/tasks/${r.json.id}`);
    const got = await api('GET', `/api/v1/tasks/${r.json.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json, r.json);
  });

  test('input keys match without regard to case; output keys are lower case', async () => {
    const r = await api('POST', '/api/v1/tasks', { TITLE: 'Shout', Completed: true });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json, { id: r.json.id, title: 'Shout', completed: true });
  });

  test('when several keys match one field the last one wins, as in Go', async () => {
    const r = await call(strata.base, 'POST', '/api/v1/tasks', { body: '{"Title":"first","title":"second"}', headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 201);
    assert.equal(r.json.title, 'second');
  });

  test('unknown keys are ignored and a body id never picks the id', async () => {
    const before = await api('POST', '/api/v1/tasks', { title: 'a' });
    const r = await api('POST', '/api/v1/tasks', { title: 'b', id: 999999, colour: 'red' });
    assert.equal(r.status, 201);
    assert.equal(r.json.id, before.json.id + 1);
    assert.deepEqual(Object.keys(r.json), ['id', 'title', 'completed']);
  });

  test('ids are positive, increasing and never reused after a delete', async () => {
    const a = await api('POST', '/api/v1/tasks', { title: 'a' });
    const b = await api('POST', '/api/v1/tasks', { title: 'b' });
    assert.ok(b.json.id > a.json.id);
    assert.equal((await api('DELETE', `/api/v1/tasks/${b.json.id}`)).status, 204);
    const c = await api('POST', '/api/v1/tasks', { title: 'c' });
    assert.ok(c.json.id > b.json.id);
  });

  test('POST without a title, with an empty title, or with wrong types is 422 naming the fields', async () => {
    assertProblem(await api('POST', '/api/v1/tasks', {}), 422, ['title']);
    assertProblem(await api('POST', '/api/v1/tasks', { title: '' }), 422, ['title']);
    assertProblem(await api('POST', '/api/v1/tasks', { title: 7, completed: 'yes' }), 422, ['title', 'completed']);
    assertProblem(await api('POST', '/api/v1/tasks', ['title']), 422, ['(body)']);
    assertProblem(await api('POST', '/api/v1/tasks', 'just a string'), 422, ['(body)']);
  });

  test('GET one: 404 for an unknown id, 400 for an id that is not a positive integer', async () => {
    assertProblem(await api('GET', '/api/v1/tasks/987654321'), 404);
    for (const bad of ['abc', '0', '-1', '1.5', '1e3', '99999999999999999999']) {
      assertProblem(await api('GET', `/api/v1/tasks/${bad}`), 400);
    }
  });

  test('PUT replaces title and completed: 200 with the task', async () => {
    const t = (await api('POST', '/api/v1/tasks', { title: 'old', completed: true })).json;
    const r = await api('PUT', `/api/v1/tasks/${t.id}`, { title: 'new' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { id: t.id, title: 'new', completed: false });
    assert.deepEqual((await api('GET', `/api/v1/tasks/${t.id}`)).json, r.json);
  });

  test('PUT: 404 unknown, 422 invalid, 422 when the body id differs from the path; the same id is fine', async () => {
    assertProblem(await api('PUT', '/api/v1/tasks/987654321', { title: 'x' }), 404);
    const t = (await api('POST', '/api/v1/tasks', { title: 'keep' })).json;
    assertProblem(await api('PUT', `/api/v1/tasks/${t.id}`, { title: '' }), 422, ['title']);
    assertProblem(await api('PUT', `/api/v1/tasks/${t.id}`, { id: t.id + 1, title: 'x' }), 422, ['id']);
    assert.deepEqual((await api('GET', `/api/v1/tasks/${t.id}`)).json, t, 'a rejected PUT changes nothing');
    const same = await api('PUT', `/api/v1/tasks/${t.id}`, { id: t.id, title: 'same id' });
    assert.equal(same.status, 200);
  });

  test('DELETE: 204 then 404, and GET after it is 404', async () => {
    const t = (await api('POST', '/api/v1/tasks', { title: 'doomed' })).json;
    const r = await api('DELETE', `/api/v1/tasks/${t.id}`);
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
    assertProblem(await api('GET', `/api/v1/tasks/${t.id}`), 404);
    assertProblem(await api('DELETE', `/api/v1/tasks/${t.id}`), 404);
  });
});

describe('task lists', () => {
  test('GET lists tasks ordered by id as a JSON array', async () => {
    const r = await api('GET', '/api/v1/tasks?limit=1000');
    assert.equal(r.status, 200);
    assert.ok(Array.isArray(r.json));
    const ids = r.json.map((t: { id: number }) => t.id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
  });

  test('?completed filters; paging with limit and after follows Link rel="next" to the end', async () => {
    const mark = (await api('POST', '/api/v1/tasks', { title: 'mark' })).json.id;
    const made: number[] = [];
    for (let i = 0; i < 7; i++) made.push((await api('POST', '/api/v1/tasks', { title: `p${i}`, completed: i % 2 === 0 })).json.id);
    const done = await api('GET', `/api/v1/tasks?completed=true&after=${mark}`);
    assert.deepEqual(done.json.map((t: { id: number }) => t.id), made.filter((_, i) => i % 2 === 0));
    const open = await api('GET', `/api/v1/tasks?completed=false&after=${mark}`);
    assert.deepEqual(open.json.map((t: { id: number }) => t.id), made.filter((_, i) => i % 2 === 1));

    const seen: number[] = [];
    let path: string | undefined = `/api/v1/tasks?limit=3&after=${mark}`;
    let pages = 0;
    while (path !== undefined && pages < 10) {
      const page = await api('GET', path);
      assert.equal(page.status, 200);
      assert.ok(page.json.length <= 3);
      seen.push(...page.json.map((t: { id: number }) => t.id));
      const link = page.headers.get('link');
      path = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1];
      pages++;
    }
    assert.deepEqual(seen, made);
    assert.equal(pages, 3, 'three pages of 3, 3 and 1; no Link on the last');
  });

  test('the next link keeps the filter', async () => {
    const r = await api('GET', '/api/v1/tasks?completed=true&limit=1');
    const link = r.headers.get('link');
    assert.ok(link !== null);
    assert.match(link, /completed=true/);
    assert.match(link, /after=\d+/);
  });

  test('limit defaults to 100 and is at most 1000; bad paging or filter values are 400', async () => {
    for (let i = 0; i < 101; i++) await api('POST', '/api/v1/tasks', { title: `bulk ${i}` });
    const r = await api('GET', '/api/v1/tasks');
    assert.equal(r.json.length, 100);
    assert.ok(r.headers.get('link'));
    assertProblem(await api('GET', '/api/v1/tasks?limit=0'), 400, ['limit']);
    assertProblem(await api('GET', '/api/v1/tasks?limit=1001'), 400, ['limit']);
    assertProblem(await api('GET', '/api/v1/tasks?limit=ten'), 400, ['limit']);
    assertProblem(await api('GET', '/api/v1/tasks?after=-1'), 400, ['after']);
    assertProblem(await api('GET', '/api/v1/tasks?completed=maybe'), 400, ['completed']);
  });
});
