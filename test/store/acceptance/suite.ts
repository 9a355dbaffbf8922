/**
 * The Store API acceptance suite, as Thanos runs one suite against every
 * store implementation (pkg/store/acceptance_test.go): every read behaviour
 * a Thanos client relies on, written once against a StoreFactory and run
 * against each implementation (engine.test.ts, grpc.test.ts,
 * memory.test.ts, sidecar.test.ts). Each group opens its own stores with
 * the flags it needs and closes them. Where Thanos' stores legitimately
 * answer differently (a Receive, a sidecar), the expectations follow the
 * factory's kind; a store's known gaps run as todo with their reason.
 *
 * Rules: proto/thanos/store/rpc.proto, WIRE.md, issue 4; the expected
 * answers are written from those rules (and Thanos' own cases), never from
 * Strata's output.
 */
import { describe } from 'node:test';
import { framesGroup } from './groups/frames.js';
import { infoGroup } from './groups/info.js';
import { labelsGroup } from './groups/labels.js';
import { largeAnswerGroup } from './groups/large-answer.js';
import { limitsGroup } from './groups/limits.js';
import { seriesGroup } from './groups/series.js';
import { shardingGroup } from './groups/sharding.js';
import { thanosCasesGroup } from './groups/thanos-cases.js';
import { thanosQueryGroup } from './groups/thanos-query.js';
import type { StoreFactory } from './store-under-test.js';

export function storeApiAcceptance(factory: StoreFactory): void {
  describe(`Store API acceptance: ${factory.name}`, () => {
    thanosCasesGroup(factory);
    seriesGroup(factory);
    labelsGroup(factory);
    thanosQueryGroup(factory);
    shardingGroup(factory);
    limitsGroup(factory);
    infoGroup(factory);
    framesGroup(factory);
    largeAnswerGroup(factory);
  });
}
