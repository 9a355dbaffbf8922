/** A discussion's comments: GET and POST /discussions/:id/comments (and .json): {id, discussion_id, author, body, created_at}. */
import { Type } from '@sinclair/typebox';
import type { RecordStore } from '../../docstore/types.js';
import { inputDecoder } from '../input.js';
import { listReply, parsePage } from '../paging.js';
import type { Reply, RequestContext } from '../route.js';
import type { Router } from '../router.js';
import { IdParam, LINK_HEADER, PageQuery } from '../schemas/common.js';
import { Comment, CommentInput } from '../schemas/discussions.js';
import { nowRfc3339 } from '../time.js';
import type { CommentIndex } from './comment-index.js';
import { created, JSON_BODY, NO_BODY, problems } from './common.js';
import { discussionOf, DISCUSSION_SUFFIXES } from './discussion-lookup.js';

const PATH = '/discussions/:id/comments';
const decodeComment = inputDecoder(CommentInput);
const tag = 'discussions';

/** Registers the comment routes; `comments` is the index shared with the discussion routes. */
export function registerComments(router: Router, store: RecordStore, comments: CommentIndex): void {
  function list(ctx: RequestContext): Reply {
    const { id } = discussionOf(store, ctx.params[0]!);
    const page = parsePage(ctx.query);
    const ids = comments.of(id);
    return listReply(
      (function* () {
        for (const commentId of ids) {
          if (commentId > page.after) yield [commentId, store.getJson('comments', commentId)!] as const;
        }
      })(),
      page,
      ctx.path + ctx.suffix,
    );
  }

  function create(ctx: RequestContext): Promise<Reply> {
    const { id: discussionId, discussion } = discussionOf(store, ctx.params[0]!);
    const input = decodeComment(ctx.body);
    const id = store.lastId('comments') + 1;
    const comment = { id, discussion_id: discussionId, author: input.author ?? null, body: input.body, created_at: nowRfc3339() };
    const counted = { ...discussion, comments_count: (discussion.comments_count as number) + 1 };
    // The comment and the discussion's new count land together.
    const durable = store.commit([
      { op: 'put', collection: 'comments', id, value: comment },
      { op: 'put', collection: 'discussions', id: discussionId, value: counted },
    ]);
    comments.add(discussionId, id);
    return durable.then(() => created(comment));
  }

  router
    .add({
      method: 'GET', path: PATH, suffixes: DISCUSSION_SUFFIXES, body: NO_BODY, handler: list,
      doc: {
        tag, operationId: 'listComments', summary: 'List a discussion’s comments, oldest first',
        params: { id: IdParam }, query: PageQuery,
        responses: {
          200: { description: 'a page of comments', schema: Type.Array(Comment), headers: LINK_HEADER },
          400: problems[400], 404: problems[404], 406: problems[406],
        },
      },
    })
    .add({
      method: 'POST', path: PATH, suffixes: DISCUSSION_SUFFIXES, body: JSON_BODY, handler: create,
      doc: {
        tag, operationId: 'createComment', summary: 'Comment on a discussion', params: { id: IdParam },
        requestBody: CommentInput, example: { body: 'Thirty days, then downsample.', author: 'grace' },
        responses: {
          201: { description: 'created', schema: Comment },
          400: problems[400], 404: problems[404], 406: problems[406], 413: problems[413], 415: problems[415], 422: problems[422],
        },
      },
    });
}
