// Concurrent writes: every like counts, ids stay unique, a unique email has one winner.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { after, before, test } from 'node:test';
import { call } from './support/http-client.js';
import { removeDir, startStrata, type StrataProcess } from './support/strata-process.js';

let strata: StrataProcess;
const api = (method: string, path: string, json?: unknown) => call(strata.base, method, path, json === undefined ? {} : { json });

before(async () => {
  strata = await startStrata();
});
after(async () => {
  await strata?.stop();
  if (strata) removeDir(dirname(strata.dataDir));
});

test('100 parallel likes count 100, each answer one higher than another', async () => {
  const d = (await api('POST', '/discussions', { title: 'popular' })).json;
  const answers = await Promise.all(Array.from({ length: 100 }, () => api('POST', `/discussions/${d.id}/like`)));
  assert.ok(answers.every((a) => a.status === 200));
  assert.deepEqual(answers.map((a) => a.json.likes_count).sort((a, b) => a - b), Array.from({ length: 100 }, (_, i) => i + 1));
  assert.equal((await api('GET', `/discussions/${d.id}`)).json.likes_count, 100);
});

test('parallel comments and likes on one discussion all count', async () => {
  const d = (await api('POST', '/discussions', { title: 'busy' })).json;
  await Promise.all([
    ...Array.from({ length: 40 }, (_, i) => api('POST', `/discussions/${d.id}/comments`, { body: `c${i}` })),
    ...Array.from({ length: 40 }, () => api('POST', `/discussions/${d.id}/like`)),
  ]);
  const now = (await api('GET', `/discussions/${d.id}`)).json;
  assert.equal(now.likes_count, 40);
  assert.equal(now.comments_count, 40);
  assert.equal((await api('GET', `/discussions/${d.id}/comments`)).json.length, 40);
});

test('100 parallel creates get 100 distinct ids, each readable', async () => {
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => api('POST', '/api/v1/tasks', { title: `t${i}` })));
  assert.ok(answers.every((a) => a.status === 201));
  const ids = answers.map((a) => a.json.id as number);
  assert.equal(new Set(ids).size, 100);
  for (const a of answers) assert.deepEqual((await api('GET', `/api/v1/tasks/${a.json.id}`)).json, a.json);
});

test('parallel creates with one email in different cases: exactly one 201, the rest 409', async () => {
  const email = `race.${process.pid}@example.com`;
  const variants = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? email.toUpperCase() : email));
  const answers = await Promise.all(variants.map((e, i) => api('POST', '/api/v1/users', { name: `r${i}`, email: e })));
  assert.equal(answers.filter((a) => a.status === 201).length, 1);
  assert.equal(answers.filter((a) => a.status === 409).length, 19);
  assert.equal((await api('GET', `/api/v1/users?email=${encodeURIComponent(email)}`)).json.length, 1);
});
