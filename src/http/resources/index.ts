/** Registers every JSON resource (tasks, users, discussions with comments and likes) on a router. */
import type { RecordStore } from '../../docstore/types.js';
import type { Router } from '../router.js';
import { CommentIndex } from './comment-index.js';
import { registerComments } from './comments.js';
import { registerDiscussions } from './discussions.js';
import { registerLikes } from './likes.js';
import { registerTasks } from './tasks.js';
import { registerUsers } from './users.js';

/**
 * Registers the resource routes on `router`, kept in `store`. Scans the
 * users and comments once to build the email and comment indexes, so call
 * it after the store has recovered.
 */
export function registerResources(router: Router, store: RecordStore): void {
  registerTasks(router, store);
  registerUsers(router, store);
  const comments = CommentIndex.build(store);
  registerDiscussions(router, store, comments);
  registerComments(router, store, comments);
  registerLikes(router, store);
}
