/** User schemas. */
import { Type } from '@sinclair/typebox';
import { BodyId, Id, Timestamp } from './common.js';

/** A user as stored and answered. */
export const User = Type.Object(
  {
    id: Id,
    name: Type.String(),
    email: Type.String({ format: 'email' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'User' },
);

/** POST and PUT bodies. Email is unique without regard to case. */
export const UserInput = Type.Object(
  {
    id: Type.Optional(BodyId),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ format: 'email', maxLength: 254, description: 'unique without regard to case' }),
  },
  { $id: 'UserInput' },
);

/** The list filter. */
export const UserListQuery = {
  email: Type.String({ description: 'only the user with this email (without regard to case)' }),
};
