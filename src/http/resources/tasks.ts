/**
 * Tasks under /api/v1/tasks: {id, title, completed}.
 *
 * GET one is the hot path: it answers the stored JSON bytes as they are,
 * synchronously, with no parsing or serialising.
 */
import { Type } from '@sinclair/typebox';
import type { RecordStore } from '../../docstore/types.js';
import { parseId } from '../ids.js';
import { inputDecoder } from '../input.js';
import { booleanParam, listReply, parsePage } from '../paging.js';
import type { Reply, RequestContext } from '../route.js';
import type { Router } from '../router.js';
import { IdParam, LINK_HEADER, LOCATION_HEADER, PageQuery } from '../schemas/common.js';
import { Task, TaskInput, TaskListQuery } from '../schemas/tasks.js';
import { scanJson } from './json-scan.js';
import { checkBodyId, created, JSON_BODY, missing, NO_BODY, NO_CONTENT, ok, problems } from './common.js';

const BASE = '/api/v1/tasks';
const ONE = `${BASE}/:id`;
const decodeTask = inputDecoder(TaskInput);
const tag = 'tasks';

/** Registers the task routes on `router`, kept in `store`. */
export function registerTasks(router: Router, store: RecordStore): void {
  function list(ctx: RequestContext): Reply {
    const page = parsePage(ctx.query);
    const completed = booleanParam(page.query, 'completed');
    if (completed === undefined) return listReply(scanJson(store, 'tasks', page.after), page, ctx.path);
    return listReply(
      (function* () {
        for (const [id, task] of store.scan('tasks', page.after)) {
          if (task.completed === completed) yield [id, store.getJson('tasks', id)!] as const;
        }
      })(),
      page,
      ctx.path,
    );
  }

  function create(ctx: RequestContext): Promise<Reply> {
    const input = decodeTask(ctx.body);
    const id = store.lastId('tasks') + 1;
    const task = { id, title: input.title, completed: input.completed ?? false };
    return store.commit([{ op: 'put', collection: 'tasks', id, value: task }]).then(() => created(task, `${BASE}/${id}`));
  }

  function getOne(ctx: RequestContext): Reply {
    const id = parseId(ctx.params[0]!);
    const json = store.getJson('tasks', id);
    if (json === undefined) throw missing('task', id);
    return { status: 200, body: json };
  }

  function replace(ctx: RequestContext): Promise<Reply> {
    const id = parseId(ctx.params[0]!);
    if (store.get('tasks', id) === undefined) throw missing('task', id);
    const input = decodeTask(ctx.body);
    checkBodyId(input.id, id);
    const task = { id, title: input.title, completed: input.completed ?? false };
    return store.commit([{ op: 'put', collection: 'tasks', id, value: task }]).then(() => ok(task));
  }

  function remove(ctx: RequestContext): Promise<Reply> {
    const id = parseId(ctx.params[0]!);
    if (store.get('tasks', id) === undefined) throw missing('task', id);
    return store.commit([{ op: 'delete', collection: 'tasks', id }]).then(() => NO_CONTENT);
  }

  router
    .add({
      method: 'GET', path: BASE, body: NO_BODY, handler: list,
      doc: {
        tag, operationId: 'listTasks', summary: 'List tasks by id',
        query: { ...TaskListQuery, ...PageQuery },
        responses: { 200: { description: 'a page of tasks', schema: Type.Array(Task), headers: LINK_HEADER }, 400: problems[400] },
      },
    })
    .add({
      method: 'POST', path: BASE, body: JSON_BODY, handler: create,
      doc: {
        tag, operationId: 'createTask', summary: 'Create a task',
        requestBody: TaskInput, example: { title: 'Write the report', completed: false },
        responses: {
          201: { description: 'created', schema: Task, headers: LOCATION_HEADER },
          400: problems[400], 413: problems[413], 415: problems[415], 422: problems[422],
        },
      },
    })
    .add({
      method: 'GET', path: ONE, body: NO_BODY, handler: getOne,
      doc: {
        tag, operationId: 'getTask', summary: 'Get a task', params: { id: IdParam },
        responses: { 200: { description: 'the task', schema: Task }, 400: problems[400], 404: problems[404] },
      },
    })
    .add({
      method: 'PUT', path: ONE, body: JSON_BODY, handler: replace,
      doc: {
        tag, operationId: 'replaceTask', summary: 'Replace a task’s title and completed', params: { id: IdParam },
        requestBody: TaskInput, example: { title: 'Write the report', completed: true },
        responses: {
          200: { description: 'the task as replaced', schema: Task },
          400: problems[400], 404: problems[404], 413: problems[413], 415: problems[415], 422: problems[422],
        },
      },
    })
    .add({
      method: 'DELETE', path: ONE, body: NO_BODY, handler: remove,
      doc: {
        tag, operationId: 'deleteTask', summary: 'Delete a task', params: { id: IdParam },
        responses: { 204: { description: 'deleted' }, 400: problems[400], 404: problems[404] },
      },
    });
}
