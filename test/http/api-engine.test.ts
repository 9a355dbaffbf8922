// The API engine at /api: in development an HTML explorer and the OpenAPI
// 3.1 document of every route; in production /api is 404 and /api/v1 works.
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { call } from './support/http-client.js';
import { assertProblem } from './support/problem.js';
import { removeDir, startStrata, type StrataProcess } from './support/strata-process.js';

/** Every route the issue asks for, as OpenAPI writes paths. */
const ROUTES: Array<[string, string]> = [
  ['get', '/api/v1/tasks'], ['post', '/api/v1/tasks'], ['get', '/api/v1/tasks/{id}'], ['put', '/api/v1/tasks/{id}'], ['delete', '/api/v1/tasks/{id}'],
  ['get', '/api/v1/users'], ['post', '/api/v1/users'], ['get', '/api/v1/users/{id}'], ['put', '/api/v1/users/{id}'], ['delete', '/api/v1/users/{id}'],
  ...['', '.json'].flatMap((s): Array<[string, string]> => [
    ['get', `/discussions${s}`], ['post', `/discussions${s}`],
    ['get', `/discussions/{id}${s}`], ['put', `/discussions/{id}${s}`], ['patch', `/discussions/{id}${s}`], ['delete', `/discussions/{id}${s}`],
    ['get', `/discussions/{id}/comments${s}`], ['post', `/discussions/{id}/comments${s}`], ['post', `/discussions/{id}/like${s}`],
  ]),
];
const BODY_ROUTES = new Set(ROUTES.filter(([m, p]) => m === 'put' || m === 'patch' || (m === 'post' && !p.includes('/like'))).map(([m, p]) => `${m} ${p}`));

let dev: StrataProcess;
let prod: StrataProcess;

before(async () => {
  [dev, prod] = await Promise.all([startStrata({ env: 'development' }), startStrata({ env: 'production' })]);
});
after(async () => {
  await Promise.all([dev?.stop(), prod?.stop()]);
  for (const s of [dev, prod]) if (s) removeDir(dirname(s.dataDir));
});

describe('development', () => {
  test('GET /api is an HTML explorer listing every route with a form to try it', async () => {
    const r = await call(dev.base, 'GET', '/api');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/html/);
    assert.match(r.text, /^<!doctype html>/i);
    const forms = [...r.text.matchAll(/<form data-method="([A-Z]+)" data-path="([^"]+)"/g)].map((m) => `${m[1]!.toLowerCase()} ${m[2]!.replace(/:(\w+)/g, '{$1}')}`);
    for (const [method, path] of ROUTES.filter(([, p]) => !p.endsWith('.json'))) assert.ok(forms.includes(`${method} ${path}`), `a form for ${method} ${path}`);
    assert.match(r.text, /<select name="suffix"[^>]*>.*\.json/s, 'the .json routes are reachable from the forms');
    assert.match(r.text, /href="\/api\/openapi\.json"/);
    assert.doesNotMatch(r.text, /<script[^>]+src=/, 'no external scripts');
  });

  test('GET /api/openapi.json is an OpenAPI 3.1 document with every route', async () => {
    const r = await call(dev.base, 'GET', '/api/openapi.json');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^application\/json/);
    const doc = r.json;
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) => Object.keys(item).map((m) => `${m} ${p}`));
    assert.deepEqual(documented.sort(), ROUTES.map(([m, p]) => `${m} ${p}`).sort());
  });

  test('the document is well formed: unique operation ids, declared path parameters, bodies, responses, resolvable $refs', async () => {
    const doc = (await call(dev.base, 'GET', '/api/openapi.json')).json;
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method} ${path}`;
        assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} is unique`);
        ids.add(op.operationId);
        assert.equal(typeof op.summary, 'string');
        const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name);
        assert.deepEqual(declared, templated, `${where}: path parameters`);
        for (const p of op.parameters ?? []) if (p.in === 'path') assert.equal(p.required, true);
        assert.equal(op.requestBody !== undefined, BODY_ROUTES.has(where), `${where}: request body`);
        if (op.requestBody) assert.ok(op.requestBody.content['application/json'].schema, `${where}: body schema`);
        const statuses = Object.keys(op.responses);
        assert.ok(statuses.some((s) => s.startsWith('2')), `${where}: a success response`);
        assert.ok(statuses.includes('405'));
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          assert.equal(typeof response.description, 'string', `${where} ${status}`);
          if (status.startsWith('4') && status !== '405') assert.ok(response.content['application/problem+json'], `${where} ${status} is problem+json`);
        }
        if (BODY_ROUTES.has(where)) for (const s of ['400', '413', '415', '422']) assert.ok(statuses.includes(s), `${where} documents ${s}`);
        if (path.startsWith('/discussions')) assert.ok(statuses.includes('406'), `${where} documents 406`);
      }
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(refs.length > 0);
    for (const name of refs) assert.ok(doc.components.schemas[name], `$ref ${name} resolves`);
    for (const name of ['Task', 'TaskInput', 'User', 'UserInput', 'Discussion', 'DiscussionCreate', 'DiscussionUpdate', 'Comment', 'CommentInput', 'Problem']) {
      assert.equal(doc.components.schemas[name]?.type, 'object', `component ${name}`);
    }
  });

  test('the schemas are the ones validation uses: what they require is what a POST without it is refused for', async () => {
    const schemas = (await call(dev.base, 'GET', '/api/openapi.json')).json.components.schemas;
    assert.deepEqual(schemas.TaskInput.required, ['title']);
    assert.equal(schemas.TaskInput.properties.title.minLength, 1);
    assert.deepEqual([...schemas.UserInput.required].sort(), ['email', 'name']);
    assert.equal(schemas.UserInput.properties.name.maxLength, 200);
    assert.deepEqual(schemas.CommentInput.required, ['body']);
    assert.equal(schemas.DiscussionUpdate.required, undefined, 'PUT and PATCH take any subset');
    assert.equal(schemas.Discussion.properties.likes_count.readOnly, true);
    const refused = await call(dev.base, 'POST', '/api/v1/tasks', { json: { completed: true } });
    assert.deepEqual(refused.json.errors.map((e: { field: string }) => e.field), schemas.TaskInput.required);
  });

  test('/api/v1 works as in production', async () => {
    assert.equal((await call(dev.base, 'POST', '/api/v1/tasks', { json: { title: 'dev' } })).status, 201);
  });
});

describe('production', () => {
  test('/api and /api/openapi.json answer 404 while /api/v1/... works', async () => {
    assertProblem(await call(prod.base, 'GET', '/api'), 404);
    assertProblem(await call(prod.base, 'GET', '/api/openapi.json'), 404);
    assert.equal((await call(prod.base, 'GET', '/api/v1/tasks')).status, 200);
    assert.equal((await call(prod.base, 'POST', '/api/v1/tasks', { json: { title: 'prod' } })).status, 201);
  });
});
