/**
 * POST /discussions/:id/like (and .json): likes_count one higher.
 *
 * Concurrent likes all count because the read, the increment and the
 * commit happen in one synchronous stretch on the main thread: the store
 * applies the commit before returning, so the next like reads the new count.
 */
import type { RecordStore } from '../../docstore/types.js';
import type { Reply, RequestContext } from '../route.js';
import type { Router } from '../router.js';
import { IdParam } from '../schemas/common.js';
import { Discussion } from '../schemas/discussions.js';
import { NO_BODY, ok, problems } from './common.js';
import { discussionOf, DISCUSSION_SUFFIXES } from './discussion-lookup.js';

/** Registers the like route. */
export function registerLikes(router: Router, store: RecordStore): void {
  function like(ctx: RequestContext): Promise<Reply> {
    const { id, discussion } = discussionOf(store, ctx.params[0]!);
    const liked = { ...discussion, likes_count: (discussion.likes_count as number) + 1 };
    return store.commit([{ op: 'put', collection: 'discussions', id, value: liked }]).then(() => ok(liked));
  }

  router.add({
    method: 'POST', path: '/discussions/:id/like', suffixes: DISCUSSION_SUFFIXES, body: NO_BODY, handler: like,
    doc: {
      tag: 'discussions', operationId: 'likeDiscussion', summary: 'Like a discussion (no body)', params: { id: IdParam },
      responses: { 200: { description: 'the discussion, likes_count one higher', schema: Discussion }, 400: problems[400], 404: problems[404], 406: problems[406] },
    },
  });
}
