/**
 * Which comments belong to which discussion: discussion id to its comment
 * ids in ascending (oldest first) order. Built by one scan of the comments
 * at start, kept in step by the comment and discussion routes; it makes
 * listing a discussion's comments and deleting them with it cost what the
 * discussion has, not what the store has.
 */
import type { RecordStore } from '../../docstore/types.js';

/** Discussion id to comment ids, oldest first. */
export class CommentIndex {
  private readonly byDiscussion = new Map<number, number[]>();

  /** Indexes every comment in `store` (one scan, in id order). */
  static build(store: RecordStore): CommentIndex {
    const index = new CommentIndex();
    for (const [id, comment] of store.scan('comments')) {
      if (typeof comment.discussion_id === 'number') index.add(comment.discussion_id, id);
    }
    return index;
  }

  /** The discussion's comment ids, ascending. Do not modify. */
  of(discussionId: number): readonly number[] {
    return this.byDiscussion.get(discussionId) ?? [];
  }

  /** Adds a comment; `commentId` must be higher than the discussion's others. */
  add(discussionId: number, commentId: number): void {
    const ids = this.byDiscussion.get(discussionId);
    if (ids === undefined) this.byDiscussion.set(discussionId, [commentId]);
    else ids.push(commentId);
  }

  /** Forgets a deleted discussion's comments. */
  drop(discussionId: number): void {
    this.byDiscussion.delete(discussionId);
  }
}
