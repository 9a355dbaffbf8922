import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { taskDispatcher, type PoolTask } from '../../src/pool/task.js';
import { POOL_TASKS } from '../../src/worker/tasks.js';

const echo: PoolTask<{ op: 'echo'; x: number }> = { op: 'echo', run: ({ x }) => x };
const twice: PoolTask<{ op: 'twice'; x: number }> = { op: 'twice', run: ({ x }) => 2 * x };

describe('taskDispatcher', () => {
  test('runs each message by the task its op names', () => {
    const run = taskDispatcher([echo, twice]);
    assert.equal(run({ op: 'echo', x: 3 } as { op: string }), 3);
    assert.equal(run({ op: 'twice', x: 3 } as { op: string }), 6);
  });

  test('names the op of a message no task runs', () => {
    assert.throws(() => taskDispatcher([echo])({ op: 'nope' }), /no pool task is named "nope"/);
  });

  test('refuses two tasks with one op', () => {
    assert.throws(() => taskDispatcher([echo, echo]), /two pool tasks are named "echo"/);
  });

  test("accepts Strata's task list: every op once", () => {
    assert.doesNotThrow(() => taskDispatcher(POOL_TASKS));
    assert.deepEqual(POOL_TASKS.map((t) => t.op).sort(), ['decode', 'encode', 'parseWrite', 'readSamples']);
  });
});
