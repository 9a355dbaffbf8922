/** Users under /api/v1/users: {id, name, email, created_at, updated_at}; email unique without regard to case. */
import { Type } from '@sinclair/typebox';
import type { RecordStore } from '../../docstore/types.js';
import { conflict } from '../errors.js';
import { parseId } from '../ids.js';
import { inputDecoder } from '../input.js';
import { listReply, parsePage } from '../paging.js';
import type { Reply, RequestContext } from '../route.js';
import type { Router } from '../router.js';
import { IdParam, LINK_HEADER, LOCATION_HEADER, PageQuery } from '../schemas/common.js';
import { User, UserInput, UserListQuery } from '../schemas/users.js';
import { nowRfc3339 } from '../time.js';
import { checkBodyId, created, JSON_BODY, missing, NO_BODY, NO_CONTENT, ok, problems } from './common.js';
import { EmailIndex } from './email-index.js';
import { scanJson } from './json-scan.js';

const BASE = '/api/v1/users';
const ONE = `${BASE}/:id`;
const decodeUser = inputDecoder(UserInput);
const tag = 'users';

function emailTaken(email: string) {
  return conflict(`the email ${email} belongs to another user`, [{ field: 'email', message: 'belongs to another user' }]);
}

/** Registers the user routes on `router`, kept in `store`. Scans the users once to index their emails. */
export function registerUsers(router: Router, store: RecordStore): void {
  const emails = EmailIndex.build(store);

  function list(ctx: RequestContext): Reply {
    const page = parsePage(ctx.query);
    const email = page.query.get('email');
    function* records(): Generator<readonly [number, Uint8Array]> {
      if (email !== null) {
        const id = emails.owner(email);
        if (id !== undefined && id > page.after) yield [id, store.getJson('users', id)!];
        return;
      }
      yield* scanJson(store, 'users', page.after);
    }
    return listReply(records(), page, ctx.path);
  }

  function create(ctx: RequestContext): Promise<Reply> {
    const input = decodeUser(ctx.body);
    if (emails.owner(input.email) !== undefined) throw emailTaken(input.email);
    const id = store.lastId('users') + 1;
    const now = nowRfc3339();
    const user = { id, name: input.name, email: input.email, created_at: now, updated_at: now };
    const durable = store.commit([{ op: 'put', collection: 'users', id, value: user }]);
    emails.set(user.email, id);
    return durable.then(() => created(user, `${BASE}/${id}`));
  }

  function getOne(ctx: RequestContext): Reply {
    const id = parseId(ctx.params[0]!);
    const json = store.getJson('users', id);
    if (json === undefined) throw missing('user', id);
    return { status: 200, body: json };
  }

  function replace(ctx: RequestContext): Promise<Reply> {
    const id = parseId(ctx.params[0]!);
    const existing = store.get('users', id);
    if (existing === undefined) throw missing('user', id);
    const input = decodeUser(ctx.body);
    checkBodyId(input.id, id);
    const owner = emails.owner(input.email);
    if (owner !== undefined && owner !== id) throw emailTaken(input.email);
    const user = { id, name: input.name, email: input.email, created_at: existing.created_at, updated_at: nowRfc3339() };
    const durable = store.commit([{ op: 'put', collection: 'users', id, value: user }]);
    emails.delete(existing.email as string);
    emails.set(user.email, id);
    return durable.then(() => ok(user));
  }

  function remove(ctx: RequestContext): Promise<Reply> {
    const id = parseId(ctx.params[0]!);
    const existing = store.get('users', id);
    if (existing === undefined) throw missing('user', id);
    const durable = store.commit([{ op: 'delete', collection: 'users', id }]);
    emails.delete(existing.email as string);
    return durable.then(() => NO_CONTENT);
  }

  router
    .add({
      method: 'GET', path: BASE, body: NO_BODY, handler: list,
      doc: {
        tag, operationId: 'listUsers', summary: 'List users by id',
        query: { ...UserListQuery, ...PageQuery },
        responses: { 200: { description: 'a page of users', schema: Type.Array(User), headers: LINK_HEADER }, 400: problems[400] },
      },
    })
    .add({
      method: 'POST', path: BASE, body: JSON_BODY, handler: create,
      doc: {
        tag, operationId: 'createUser', summary: 'Create a user',
        requestBody: UserInput, example: { name: 'Ada Lovelace', email: 'ada@example.com' },
        responses: {
          201: { description: 'created', schema: User, headers: LOCATION_HEADER },
          400: problems[400], 409: problems[409], 413: problems[413], 415: problems[415], 422: problems[422],
        },
      },
    })
    .add({
      method: 'GET', path: ONE, body: NO_BODY, handler: getOne,
      doc: {
        tag, operationId: 'getUser', summary: 'Get a user', params: { id: IdParam },
        responses: { 200: { description: 'the user', schema: User }, 400: problems[400], 404: problems[404] },
      },
    })
    .add({
      method: 'PUT', path: ONE, body: JSON_BODY, handler: replace,
      doc: {
        tag, operationId: 'replaceUser', summary: 'Replace a user’s name and email', params: { id: IdParam },
        requestBody: UserInput, example: { name: 'Ada King', email: 'ada@example.com' },
        responses: {
          200: { description: 'the user as replaced', schema: User },
          400: problems[400], 404: problems[404], 409: problems[409], 413: problems[413], 415: problems[415], 422: problems[422],
        },
      },
    })
    .add({
      method: 'DELETE', path: ONE, body: NO_BODY, handler: remove,
      doc: {
        tag, operationId: 'deleteUser', summary: 'Delete a user', params: { id: IdParam },
        responses: { 204: { description: 'deleted' }, 400: problems[400], 404: problems[404] },
      },
    });
}
