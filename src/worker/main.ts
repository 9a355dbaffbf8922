// The module piscina loads in each worker thread of the pool (CodecPool):
// it runs each message by the task its `op` names (src/worker/tasks.ts).
// Each thread loads the WebAssembly module once (threadCodec in
// src/chunkenc/index.ts) and every task uses that instance; answers' buffers
// are moved (not copied) back to the caller's thread.
import { taskDispatcher } from '../pool/task.js';
import { POOL_TASKS } from './tasks.js';

export default taskDispatcher(POOL_TASKS);
