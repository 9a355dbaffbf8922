/** Assertions about problem+json answers. */
import assert from 'node:assert/strict';
import type { Answer } from './http-client.js';

/** Asserts an RFC 9457 problem with `status`; when `fields` is given, the errors name exactly those fields. */
export function assertProblem(answer: Answer, status: number, fields?: string[]): void {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = answer.json as { title: unknown; status: unknown; detail: unknown; errors?: Array<{ field: string; message: string }> };
  assert.equal(body.status, status);
  assert.equal(typeof body.title, 'string');
  assert.ok((body.title as string).length > 0);
  assert.equal(typeof body.detail, 'string');
  if (fields !== undefined) {
    assert.deepEqual((body.errors ?? []).map((e) => e.field).sort(), [...fields].sort(), answer.text);
    for (const e of body.errors ?? []) assert.ok(e.message.length > 0);
  }
}
