// Discussions, comments and likes under /discussions, black-box against `strata serve`.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call, RFC3339_UTC } from './support/http-client.js';
import { assertProblem } from './support/problem.js';
import { removeDir, startStrata, type StrataProcess } from './support/strata-process.js';

let strata: StrataProcess;
const api = (method: string, path: string, json?: unknown) => call(strata.base, method, path, json === undefined ? {} : { json });
const newDiscussion = async (fields: object = {}) => (await api('POST', '/discussions', { title: 'A question', ...fields })).json;

before(async () => {
  strata = await startStrata();
});
after(async () => {
  await strata?.stop();
  if (strata) removeDir(dirname(strata.dataDir));
});

describe('discussions', () => {
  test('POST creates: 201, Location, body defaults to "", author to null, counts start at 0', async () => {
    const r = await api('POST', '/discussions', { Title: 'Retention', Author: 'ada' });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.json), ['id', 'title', 'body', 'author', 'likes_count', 'comments_count', 'created_at', 'updated_at']);
    assert.equal(r.json.title, 'Retention');
    assert.equal(r.json.body, '');
    assert.equal(r.json.author, 'ada');
    assert.equal(r.json.likes_count, 0);
    assert.equal(r.json.comments_count, 0);
    assert.match(r.json.created_at, RFC3339_UTC);
    assert.equal(r.headers.get('location'), `/discussions/${r.json.id}`);
    assert.equal((await newDiscussion()).author, null);
    assert.deepEqual((await api('GET', `/discussions/${r.json.id}`)).json, r.json);
  });

  test('POST without a title is 422; counts in the body are ignored', async () => {
    assertProblem(await api('POST', '/discussions', { body: 'no title' }), 422, ['title']);
    assertProblem(await api('POST', '/discussions', { title: '' }), 422, ['title']);
    assertProblem(await api('POST', '/discussions', { title: 'x', body: 5, author: 6 }), 422, ['body', 'author']);
    const d = await newDiscussion({ likes_count: 50, comments_count: 9 });
    assert.equal(d.likes_count, 0);
    assert.equal(d.comments_count, 0);
  });

  test('PUT and PATCH both change only the fields given; counts are read-only', async () => {
    const d = await newDiscussion({ body: 'original body', author: 'ada' });
    await new Promise((r) => setTimeout(r, 5));
    for (const method of ['PUT', 'PATCH']) {
      const r = await api(method, `/discussions/${d.id}`, { title: `by ${method}`, likes_count: 1000, comments_count: 1000 });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.title, `by ${method}`);
      assert.equal(r.json.body, 'original body');
      assert.equal(r.json.author, 'ada');
      assert.equal(r.json.likes_count, 0);
      assert.equal(r.json.comments_count, 0);
      assert.equal(r.json.created_at, d.created_at);
      assert.ok(r.json.updated_at > d.updated_at);
    }
    const r = await api('PATCH', `/discussions/${d.id}`, { BODY: 'new body', author: null });
    assert.equal(r.json.title, 'by PATCH');
    assert.equal(r.json.body, 'new body');
    assert.equal(r.json.author, null);
  });

  test('PUT and PATCH: 404 unknown, 422 invalid, 422 for a different body id', async () => {
    const d = await newDiscussion();
    for (const method of ['PUT', 'PATCH']) {
      assertProblem(await api(method, '/discussions/987654321', { title: 'x' }), 404);
      assertProblem(await api(method, `/discussions/${d.id}`, { title: '' }), 422, ['title']);
      assertProblem(await api(method, `/discussions/${d.id}`, { id: d.id + 1 }), 422, ['id']);
    }
    assert.deepEqual((await api('GET', `/discussions/${d.id}`)).json, d);
  });

  test('GET one 404 unknown, 400 bad id; GET list ordered by id with paging', async () => {
    assertProblem(await api('GET', '/discussions/987654321'), 404);
    assertProblem(await api('GET', '/discussions/first'), 400);
    const a = await newDiscussion();
    const b = await newDiscussion();
    const r = await api('GET', `/discussions?after=${a.id - 1}&limit=1`);
    assert.deepEqual(r.json, [a]);
    assert.match(r.headers.get('link')!, new RegExp(`after=${a.id}`));
    const all = (await api('GET', '/discussions?limit=1000')).json.map((x: { id: number }) => x.id);
    assert.ok(all.includes(b.id));
    assert.deepEqual(all, [...all].sort((x: number, y: number) => x - y));
  });
});

describe('comments and likes', () => {
  test('comments: 201 with the comment, listed oldest first, comments_count follows', async () => {
    const d = await newDiscussion();
    const c1 = await api('POST', `/discussions/${d.id}/comments`, { body: 'first', author: 'grace' });
    assert.equal(c1.status, 201);
    assert.deepEqual(Object.keys(c1.json), ['id', 'discussion_id', 'author', 'body', 'created_at']);
    assert.equal(c1.json.discussion_id, d.id);
    assert.equal(c1.json.author, 'grace');
    assert.match(c1.json.created_at, RFC3339_UTC);
    const c2 = await api('POST', `/discussions/${d.id}/comments`, { Body: 'second' });
    assert.equal(c2.json.author, null);
    const list = await api('GET', `/discussions/${d.id}/comments`);
    assert.equal(list.status, 200);
    assert.deepEqual(list.json, [c1.json, c2.json]);
    assert.equal((await api('GET', `/discussions/${d.id}`)).json.comments_count, 2);
    assert.deepEqual((await api('GET', `/discussions/${(await newDiscussion()).id}/comments`)).json, []);
  });

  test('comments: body is required (422); unknown discussion 404', async () => {
    const d = await newDiscussion();
    assertProblem(await api('POST', `/discussions/${d.id}/comments`, {}), 422, ['body']);
    assertProblem(await api('POST', `/discussions/${d.id}/comments`, { body: '' }), 422, ['body']);
    assertProblem(await api('POST', '/discussions/987654321/comments', { body: 'x' }), 404);
    assertProblem(await api('GET', '/discussions/987654321/comments'), 404);
    assert.equal((await api('GET', `/discussions/${d.id}`)).json.comments_count, 0);
  });

  test('like: 200 with the discussion, likes_count one higher; 404 unknown', async () => {
    const d = await newDiscussion();
    const r = await api('POST', `/discussions/${d.id}/like`);
    assert.equal(r.status, 200);
    assert.equal(r.json.likes_count, 1);
    assert.equal(r.json.id, d.id);
    assert.equal((await api('POST', `/discussions/${d.id}/like`)).json.likes_count, 2);
    assertProblem(await api('POST', '/discussions/987654321/like'), 404);
  });

  test('DELETE: 204; its comments go with it; then 404 everywhere', async () => {
    const d = await newDiscussion();
    await api('POST', `/discussions/${d.id}/comments`, { body: 'one' });
    await api('POST', `/discussions/${d.id}/comments`, { body: 'two' });
    const r = await api('DELETE', `/discussions/${d.id}`);
    assert.equal(r.status, 204);
    assertProblem(await api('GET', `/discussions/${d.id}`), 404);
    assertProblem(await api('GET', `/discussions/${d.id}/comments`), 404);
    assertProblem(await api('POST', `/discussions/${d.id}/like`), 404);
    assertProblem(await api('DELETE', `/discussions/${d.id}`), 404);
  });
});

describe('the .json format suffix', () => {
  test('every discussions route answers with .json as without it', async () => {
    const created = await api('POST', '/discussions.json', { title: 'suffixed' });
    assert.equal(created.status, 201);
    const id = created.json.id;
    assert.equal(created.headers.get('location'), `/discussions/${id}.json`);
    assert.equal((await api('GET', '/discussions.json')).status, 200);
    assert.deepEqual((await api('GET', `/discussions/${id}.json`)).json, created.json);
    assert.equal((await api('PUT', `/discussions/${id}.json`, { body: 'put' })).json.body, 'put');
    assert.equal((await api('PATCH', `/discussions/${id}.json`, { body: 'patched' })).json.body, 'patched');
    assert.equal((await api('POST', `/discussions/${id}/comments.json`, { body: 'c' })).status, 201);
    assert.equal((await api('GET', `/discussions/${id}/comments.json`)).json.length, 1);
    assert.equal((await api('POST', `/discussions/${id}/like.json`)).json.likes_count, 1);
    assert.equal((await api('DELETE', `/discussions/${id}.json`)).status, 204);
  });

  test('any other suffix is 406 and changes nothing', async () => {
    const d = await newDiscussion();
    const cases: Array<[string, string, unknown?]> = [
      ['GET', '/discussions.xml'], ['POST', '/discussions.xml', { title: 'x' }], ['GET', '/discussions.JSON'],
      ['GET', `/discussions/${d.id}.xml`], ['PUT', `/discussions/${d.id}.yaml`, { title: 'x' }],
      ['PATCH', `/discussions/${d.id}.html`, { title: 'x' }], ['DELETE', `/discussions/${d.id}.txt`],
      ['GET', `/discussions/${d.id}/comments.csv`], ['POST', `/discussions/${d.id}/comments.xml`, { body: 'x' }],
      ['POST', `/discussions/${d.id}/like.xml`],
    ];
    for (const [method, path, json] of cases) assertProblem(await api(method, path, json), 406);
    assert.deepEqual((await api('GET', `/discussions/${d.id}`)).json, d);
  });

  test('resources outside /discussions take no suffix: /api/v1/tasks.json is 404', async () => {
    assertProblem(await api('GET', '/api/v1/tasks.json'), 404);
  });
});
