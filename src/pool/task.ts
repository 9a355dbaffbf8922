/**
 * The pool's task contract. The pool knows no feature: each feature that
 * has work for the workers defines its task beside its own code (the
 * worker half, a {@link PoolTask}, and the caller half, a function over a
 * {@link TaskRunner}), and src/worker/tasks.ts lists them for the worker
 * module.
 *
 * @example
 * interface DoubleMessage { op: 'double'; xs: Float64Array }
 * export const doubleTask: PoolTask<DoubleMessage> = {
 *   op: 'double',
 *   run: ({ xs }) => moved(xs.map((x) => 2 * x).buffer),
 * };
 * export const doubleInPool = async (pool: TaskRunner, xs: Float64Array) =>
 *   new Float64Array(await pool.run<ArrayBuffer>({ op: 'double', xs }));
 */

/** What crosses to a worker: the task's name and its input, cloned (or moved: see TaskRunner.run). */
export interface TaskMessage {
  readonly op: string;
}

/** The worker half of a task: what a worker does with a message of `op`. */
export interface PoolTask<M extends TaskMessage = TaskMessage> {
  /** The message's `op`; unique among the pool's tasks. */
  readonly op: M['op'];
  /**
   * Runs in a worker thread, synchronously, one message at a time per
   * worker. The answer is structured-cloned back unless wrapped by `moved`
   * or `movedWith` (src/pool/transfer.ts). An error thrown crosses as a
   * clone that keeps only name, message and stack: answer errors the
   * caller must tell apart as data, and throw them again on its side.
   */
  // A method (not a function-valued property) so that a PoolTask of one
  // message type is a PoolTask of TaskMessage, as the registry lists them.
  run(message: M): unknown;
}

/** The caller half's view of the pool (CodecPool implements it). */
export interface TaskRunner {
  /**
   * Runs `message` in a worker and resolves to its task's answer.
   *
   * Ownership: the buffers of `transferList` are moved to the worker (the
   * caller's views of them are empty afterwards); the rest of `message` is
   * copied. The answer belongs to the caller.
   */
  run<A>(message: TaskMessage, transferList?: ArrayBuffer[]): Promise<A>;
}

/**
 * The worker module's entry: runs each message by the task of its `op`.
 * @throws Error when two tasks share an op (at once), or a message names no task.
 */
export function taskDispatcher(tasks: readonly PoolTask[]): (message: TaskMessage) => unknown {
  const byOp = new Map<string, PoolTask>();
  for (const t of tasks) {
    if (byOp.has(t.op)) throw new Error(`two pool tasks are named ${JSON.stringify(t.op)}`);
    byOp.set(t.op, t);
  }
  return (message) => {
    const task = byOp.get(message.op);
    if (task === undefined) throw new Error(`no pool task is named ${JSON.stringify(message.op)}`);
    return task.run(message);
  };
}
