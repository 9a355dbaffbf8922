/** Task schemas: what is answered and what is accepted. */
import { Type } from '@sinclair/typebox';
import { BodyId, Id } from './common.js';

/** A task as stored and answered. */
export const Task = Type.Object(
  {
    id: Id,
    title: Type.String(),
    completed: Type.Boolean(),
  },
  { $id: 'Task' },
);

/** POST and PUT bodies: title required, completed defaults to false. Keys match without regard to case. */
export const TaskInput = Type.Object(
  {
    id: Type.Optional(BodyId),
    title: Type.String({ minLength: 1 }),
    completed: Type.Optional(Type.Boolean({ default: false })),
  },
  { $id: 'TaskInput' },
);

/** The list filter. */
export const TaskListQuery = {
  completed: Type.Boolean({ description: 'only tasks with this completed value' }),
};
