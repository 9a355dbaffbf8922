/**
 * Every task the pool's workers run. Each task's code sits beside the
 * feature that owns it; this list is the one place that names them all.
 * Only worker-side modules belong here: nothing this list imports loads
 * an HTTP route or a gRPC service.
 */
import { decodeTask, encodeTask } from '../chunkenc/pool-tasks.js';
import type { PoolTask } from '../pool/task.js';
import { readSamplesTask } from '../remote-read/samples-task.js';
import { parseWriteTask } from '../ingest/parse-task.js';

export const POOL_TASKS: readonly PoolTask[] = [encodeTask, decodeTask, parseWriteTask, readSamplesTask];
