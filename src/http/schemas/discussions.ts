/** Discussion schemas. */
import { Type } from '@sinclair/typebox';
import { BodyId, Id, RefId, Timestamp } from './common.js';

const Author = Type.Union([Type.String(), Type.Null()]);
const Count = Type.Integer({ minimum: 0, readOnly: true });

/** A discussion as stored and answered. The counts are kept by the server. */
export const Discussion = Type.Object(
  {
    id: Id,
    title: Type.String(),
    body: Type.String(),
    author: Author,
    likes_count: Count,
    comments_count: Count,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Discussion' },
);

/** POST body: title required, body defaults to "", author to null. */
export const DiscussionCreate = Type.Object(
  {
    title: Type.String({ minLength: 1 }),
    body: Type.Optional(Type.String({ default: '' })),
    author: Type.Optional(Author),
  },
  { $id: 'DiscussionCreate' },
);

/** PUT and PATCH body: only the fields given change. Read-only fields are ignored. */
export const DiscussionUpdate = Type.Object(
  {
    id: Type.Optional(BodyId),
    title: Type.Optional(Type.String({ minLength: 1 })),
    body: Type.Optional(Type.String()),
    author: Type.Optional(Author),
  },
  { $id: 'DiscussionUpdate' },
);

/** A comment as stored and answered. */
export const Comment = Type.Object(
  {
    id: Id,
    discussion_id: RefId,
    author: Author,
    body: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'Comment' },
);

/** POST comment body. */
export const CommentInput = Type.Object(
  {
    body: Type.String({ minLength: 1 }),
    author: Type.Optional(Author),
  },
  { $id: 'CommentInput' },
);
