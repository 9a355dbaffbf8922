// The acceptance suite against a trivial in-memory source with the same
// decorators: the source knows nothing of external labels, replica labels,
// shards or limits, so passing shows the decorators make those right.
import { inProcessMemory } from './store-under-test.js';
import { storeApiAcceptance } from './suite.js';

storeApiAcceptance(inProcessMemory);
