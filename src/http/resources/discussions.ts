/**
 * Discussions under /discussions (no version prefix), each route also with a
 * `.json` suffix: {id, title, body, author, likes_count, comments_count,
 * created_at, updated_at}. The counts are kept by the comment and like
 * routes; PUT and PATCH both change only the fields given.
 */
import { Type } from '@sinclair/typebox';
import type { RecordStore, RecordValue, WriteOp } from '../../docstore/types.js';
import { parseId } from '../ids.js';
import { inputDecoder } from '../input.js';
import { listReply, parsePage } from '../paging.js';
import type { Method, Reply, RequestContext } from '../route.js';
import type { Router } from '../router.js';
import { IdParam, LINK_HEADER, LOCATION_HEADER, PageQuery } from '../schemas/common.js';
import { Discussion, DiscussionCreate, DiscussionUpdate } from '../schemas/discussions.js';
import { nowRfc3339 } from '../time.js';
import type { CommentIndex } from './comment-index.js';
import { checkBodyId, created, JSON_BODY, missing, NO_BODY, NO_CONTENT, ok, problems } from './common.js';
import { discussionOf, DISCUSSION_SUFFIXES } from './discussion-lookup.js';
import { scanJson } from './json-scan.js';

const BASE = '/discussions';
const ONE = `${BASE}/:id`;
const decodeCreate = inputDecoder(DiscussionCreate);
const decodeUpdate = inputDecoder(DiscussionUpdate);
const tag = 'discussions';

/** Registers the discussion routes; `comments` is shared with the comment routes (deleting cascades). */
export function registerDiscussions(router: Router, store: RecordStore, comments: CommentIndex): void {
  function list(ctx: RequestContext): Reply {
    const page = parsePage(ctx.query);
    return listReply(scanJson(store, 'discussions', page.after), page, ctx.path + ctx.suffix);
  }

  function create(ctx: RequestContext): Promise<Reply> {
    const input = decodeCreate(ctx.body);
    const id = store.lastId('discussions') + 1;
    const now = nowRfc3339();
    const discussion = {
      id, title: input.title, body: input.body ?? '', author: input.author ?? null,
      likes_count: 0, comments_count: 0, created_at: now, updated_at: now,
    };
    return store
      .commit([{ op: 'put', collection: 'discussions', id, value: discussion }])
      .then(() => created(discussion, `${BASE}/${id}${ctx.suffix}`));
  }

  function getOne(ctx: RequestContext): Reply {
    const id = parseId(ctx.params[0]!);
    const json = store.getJson('discussions', id);
    if (json === undefined) throw missing('discussion', id);
    return { status: 200, body: json };
  }

  function update(ctx: RequestContext): Promise<Reply> {
    const { id, discussion } = discussionOf(store, ctx.params[0]!);
    const input = decodeUpdate(ctx.body);
    checkBodyId(input.id, id);
    const next: RecordValue = { ...discussion, updated_at: nowRfc3339() };
    if (input.title !== undefined) next.title = input.title;
    if (input.body !== undefined) next.body = input.body;
    if (input.author !== undefined) next.author = input.author;
    return store.commit([{ op: 'put', collection: 'discussions', id, value: next }]).then(() => ok(next));
  }

  function remove(ctx: RequestContext): Promise<Reply> {
    const { id } = discussionOf(store, ctx.params[0]!);
    // The discussion and all its comments go in one atomic commit.
    const ops: WriteOp[] = comments.of(id).map((commentId) => ({ op: 'delete', collection: 'comments', id: commentId }));
    ops.push({ op: 'delete', collection: 'discussions', id });
    const durable = store.commit(ops);
    comments.drop(id);
    return durable.then(() => NO_CONTENT);
  }

  const suffixes = DISCUSSION_SUFFIXES;
  const updateDoc = (method: Method) => ({
    tag, operationId: method === 'PUT' ? 'putDiscussion' : 'patchDiscussion',
    summary: `Update the given fields of a discussion (${method})`, params: { id: IdParam },
    requestBody: DiscussionUpdate, example: { title: 'Renamed' },
    responses: {
      200: { description: 'the discussion as updated', schema: Discussion },
      400: problems[400], 404: problems[404], 406: problems[406], 413: problems[413], 415: problems[415], 422: problems[422],
    },
  });

  router
    .add({
      method: 'GET', path: BASE, suffixes, body: NO_BODY, handler: list,
      doc: {
        tag, operationId: 'listDiscussions', summary: 'List discussions by id', query: PageQuery,
        responses: { 200: { description: 'a page of discussions', schema: Type.Array(Discussion), headers: LINK_HEADER }, 400: problems[400], 406: problems[406] },
      },
    })
    .add({
      method: 'POST', path: BASE, suffixes, body: JSON_BODY, handler: create,
      doc: {
        tag, operationId: 'createDiscussion', summary: 'Start a discussion',
        requestBody: DiscussionCreate, example: { title: 'Retention for raw samples', body: 'How long should we keep them?', author: 'ada' },
        responses: {
          201: { description: 'created', schema: Discussion, headers: LOCATION_HEADER },
          400: problems[400], 406: problems[406], 413: problems[413], 415: problems[415], 422: problems[422],
        },
      },
    })
    .add({
      method: 'GET', path: ONE, suffixes, body: NO_BODY, handler: getOne,
      doc: {
        tag, operationId: 'getDiscussion', summary: 'Get a discussion', params: { id: IdParam },
        responses: { 200: { description: 'the discussion', schema: Discussion }, 400: problems[400], 404: problems[404], 406: problems[406] },
      },
    })
    .add({ method: 'PUT', path: ONE, suffixes, body: JSON_BODY, handler: update, doc: updateDoc('PUT') })
    .add({ method: 'PATCH', path: ONE, suffixes, body: JSON_BODY, handler: update, doc: updateDoc('PATCH') })
    .add({
      method: 'DELETE', path: ONE, suffixes, body: NO_BODY, handler: remove,
      doc: {
        tag, operationId: 'deleteDiscussion', summary: 'Delete a discussion and its comments', params: { id: IdParam },
        responses: { 204: { description: 'deleted, with its comments' }, 400: problems[400], 404: problems[404], 406: problems[406] },
      },
    });
}
