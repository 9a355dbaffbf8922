// Users under /api/v1/users, black-box against `strata serve`.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call, RFC3339_UTC } from './support/http-client.js';
import { assertProblem } from './support/problem.js';
import { removeDir, startStrata, type StrataProcess } from './support/strata-process.js';

let strata: StrataProcess;
const api = (method: string, path: string, json?: unknown) => call(strata.base, method, path, json === undefined ? {} : { json });
let seq = 0;
const unique = (tag: string) => `${tag}.${process.pid}.${++seq}@example.com`;

before(async () => {
  strata = await startStrata();
});
after(async () => {
  await strata?.stop();
  if (strata) removeDir(dirname(strata.dataDir));
});

describe('users', () => {
  test('POST creates a user: 201, Location, RFC 3339 UTC times equal at creation', async () => {
    const email = unique('ada');
    const r = await api('POST', '/api/v1/users', { name: 'Ada', email });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.json), ['id', 'name', 'email', 'created_at', 'updated_at']);
    assert.equal(r.json.name, 'Ada');
    assert.equal(r.json.email, email);
    assert.match(r.json.created_at, RFC3339_UTC);
    assert.equal(r.json.updated_at, r.json.created_at);
    assert.equal(r.headers.get('location'), `/api/v1/users/${r.json.id}`);
    assert.deepEqual((await api('GET', `/api/v1/users/${r.json.id}`)).json, r.json);
  });

  test('input keys match without regard to case', async () => {
    const r = await api('POST', '/api/v1/users', { NAME: 'Grace', Email: unique('grace') });
    assert.equal(r.status, 201);
    assert.equal(r.json.name, 'Grace');
  });

  test('name must be 1-200 characters and email a valid address: 422 naming the fields', async () => {
    assertProblem(await api('POST', '/api/v1/users', {}), 422, ['name', 'email']);
    assertProblem(await api('POST', '/api/v1/users', { name: '', email: unique('e') }), 422, ['name']);
    assertProblem(await api('POST', '/api/v1/users', { name: 'x'.repeat(201), email: unique('e') }), 422, ['name']);
    assert.equal((await api('POST', '/api/v1/users', { name: 'x'.repeat(200), email: unique('e') })).status, 201);
    for (const email of ['plain', 'a@b', '@example.com', 'a@@example.com', 'a b@example.com', 'a@-x.com', 'a..b@example.com', 42]) {
      assertProblem(await api('POST', '/api/v1/users', { name: 'n', email }), 422, ['email']);
    }
  });

  test('email is unique without regard to case: 409 on POST', async () => {
    const email = unique('Case');
    assert.equal((await api('POST', '/api/v1/users', { name: 'one', email })).status, 201);
    assertProblem(await api('POST', '/api/v1/users', { name: 'two', email: email.toUpperCase() }), 409, ['email']);
  });

  test('PUT replaces name and email, keeps created_at, moves updated_at; 409 on another user’s email', async () => {
    const a = (await api('POST', '/api/v1/users', { name: 'a', email: unique('a') })).json;
    const b = (await api('POST', '/api/v1/users', { name: 'b', email: unique('b') })).json;
    await new Promise((r) => setTimeout(r, 5));
    const newEmail = unique('a2');
    const r = await api('PUT', `/api/v1/users/${a.id}`, { name: 'A', email: newEmail });
    assert.equal(r.status, 200);
    assert.equal(r.json.name, 'A');
    assert.equal(r.json.email, newEmail);
    assert.equal(r.json.created_at, a.created_at);
    assert.ok(r.json.updated_at > a.updated_at);
    assert.match(r.json.updated_at, RFC3339_UTC);
    assertProblem(await api('PUT', `/api/v1/users/${a.id}`, { name: 'A', email: b.email.toUpperCase() }), 409, ['email']);
    // A user may change the case of their own email; the old email is free again.
    assert.equal((await api('PUT', `/api/v1/users/${a.id}`, { name: 'A', email: newEmail.toUpperCase() })).status, 200);
    assert.equal((await api('POST', '/api/v1/users', { name: 'c', email: a.email })).status, 201);
  });

  test('PUT: 404 unknown, 422 invalid or with a different body id', async () => {
    assertProblem(await api('PUT', '/api/v1/users/987654321', { name: 'x', email: unique('x') }), 404);
    const u = (await api('POST', '/api/v1/users', { name: 'u', email: unique('u') })).json;
    assertProblem(await api('PUT', `/api/v1/users/${u.id}`, { name: 'only a name' }), 422, ['email']);
    assertProblem(await api('PUT', `/api/v1/users/${u.id}`, { id: u.id + 1, name: 'x', email: unique('x') }), 422, ['id']);
    assert.deepEqual((await api('GET', `/api/v1/users/${u.id}`)).json, u);
  });

  test('DELETE: 204, then 404; the email is free again', async () => {
    const u = (await api('POST', '/api/v1/users', { name: 'gone', email: unique('gone') })).json;
    assert.equal((await api('DELETE', `/api/v1/users/${u.id}`)).status, 204);
    assertProblem(await api('GET', `/api/v1/users/${u.id}`), 404);
    assertProblem(await api('DELETE', `/api/v1/users/${u.id}`), 404);
    assert.equal((await api('POST', '/api/v1/users', { name: 'again', email: u.email })).status, 201);
  });

  test('GET one: 400 for an id that is not a positive integer', async () => {
    assertProblem(await api('GET', '/api/v1/users/x'), 400);
  });
});

describe('user lists', () => {
  test('?email= finds the user without regard to case', async () => {
    const email = unique('Find');
    const u = (await api('POST', '/api/v1/users', { name: 'find me', email })).json;
    const r = await api('GET', `/api/v1/users?email=${encodeURIComponent(email.toLowerCase())}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, [u]);
    assert.deepEqual((await api('GET', '/api/v1/users?email=nobody%40example.com')).json, []);
  });

  test('lists page by limit and after with a next link, ordered by id', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await api('POST', '/api/v1/users', { name: `p${i}`, email: unique('p') })).json.id);
    const first = await api('GET', `/api/v1/users?limit=3&after=${ids[0]! - 1}`);
    assert.deepEqual(first.json.map((u: { id: number }) => u.id), ids.slice(0, 3));
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link')!)![1]!;
    const second = await api('GET', next);
    assert.deepEqual(second.json.map((u: { id: number }) => u.id).slice(0, 2), ids.slice(3));
    assertProblem(await api('GET', '/api/v1/users?limit=5000'), 400, ['limit']);
  });
});
