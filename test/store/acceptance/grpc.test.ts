// The acceptance suite against `strata serve` (from dist/: build first),
// black box over gRPC, as Thanos Query calls it.
import { after } from 'node:test';
import { removeTempDirs, stopAll } from '../support/strata-grpc.js';
import { grpcStrata } from './store-under-test.js';
import { storeApiAcceptance } from './suite.js';

storeApiAcceptance(grpcStrata);

after(async () => {
  await stopAll();
  removeTempDirs();
});
