// The router on its own: what other modules rely on when they add routes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Router } from '../../src/http/router.js';
import type { RouteSpec } from '../../src/http/route.js';

const route = (method: RouteSpec['method'], path: string, extra: Partial<RouteSpec> = {}): RouteSpec => ({
  method, path, body: { kind: 'none' }, handler: () => ({ status: 204 }), ...extra,
});

describe('Router', () => {
  test('a literal segment wins over a parameter, whatever the registration order', () => {
    const r = new Router().add(route('GET', '/api/v1/label/:name/values')).add(route('GET', '/api/v1/labels')).add(route('GET', '/api/v1/:thing'));
    assert.equal(r.match('/api/v1/labels')!.entry.pattern, '/api/v1/labels');
    assert.equal(r.match('/api/v1/other')!.entry.pattern, '/api/v1/:thing');
    assert.deepEqual(r.match('/api/v1/label/job/values')!.params, ['job']);
  });

  test('a failed literal branch falls back to the parameter at the same depth', () => {
    const r = new Router().add(route('GET', '/a/b/c')).add(route('GET', '/a/:x/d'));
    assert.deepEqual(r.match('/a/b/d')!.params, ['b']);
  });

  test('paths that do not match, including trailing slashes and empty segments, give undefined', () => {
    const r = new Router().add(route('GET', '/tasks')).add(route('GET', '/tasks/:id'));
    for (const p of ['/', '/task', '/tasks/', '/tasks//', '/tasks/1/2', 'tasks', '']) assert.equal(r.match(p), undefined, p);
  });

  test('parameters are percent-decoded; bad encoding is a 400 problem', () => {
    const r = new Router().add(route('GET', '/label/:name'));
    assert.deepEqual(r.match('/label/a%20b')!.params, ['a b']);
    assert.throws(() => r.match('/label/%E0%A4%A'), { status: 400 });
  });

  test('a path with suffixes matches its stem; an unknown suffix is flagged for 406', () => {
    const r = new Router().add(route('GET', '/d', { suffixes: ['.json'] })).add(route('GET', '/d/:id', { suffixes: ['.json'] })).add(route('GET', '/t/:id'));
    assert.deepEqual({ ...r.match('/d/7.json')!, entry: undefined }, { entry: undefined, params: ['7'], suffix: '.json', suffixRejected: false });
    assert.equal(r.match('/d.json')!.suffixRejected, false);
    assert.equal(r.match('/d/7.xml')!.suffixRejected, true);
    assert.deepEqual(r.match('/t/7.json')!.params, ['7.json'], 'no suffixes: the dot belongs to the parameter');
  });

  test('Allow lists the methods, HEAD with GET, and OPTIONS', () => {
    const r = new Router().add(route('DELETE', '/x')).add(route('GET', '/x')).add(route('POST', '/y'));
    assert.equal(r.match('/x')!.entry.allow, 'GET, HEAD, DELETE, OPTIONS');
    assert.equal(r.match('/y')!.entry.allow, 'POST, OPTIONS');
  });

  test('registering a method and path twice, or with different suffixes, throws', () => {
    const r = new Router().add(route('GET', '/x', { suffixes: ['.json'] }));
    assert.throws(() => r.add(route('GET', '/x', { suffixes: ['.json'] })), /twice/);
    assert.throws(() => r.add(route('POST', '/x')), /suffixes/);
  });
});
