// The acceptance suite against the engine source and the decorators, in
// process (store-stack.ts as `strata serve` composes it), without gRPC.
import { inProcessEngine } from './store-under-test.js';
import { storeApiAcceptance } from './suite.js';

storeApiAcceptance(inProcessEngine);
