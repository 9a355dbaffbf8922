// The acceptance suite against the sidecar's source over a real Prometheus
// 2.42 (the Debian `prometheus` binary on PATH), decorated as `strata
// sidecar` decorates it, in process. Skips, with the reason, only when
// `prometheus` is not on PATH.
import { after, test } from 'node:test';
import { hasPrometheus, stopAllReceivers } from '../support/prometheus-receiver.js';
import { inProcessSidecar } from './sidecar-under-test.js';
import { storeApiAcceptance } from './suite.js';

if (hasPrometheus()) {
  storeApiAcceptance(inProcessSidecar);
  after(stopAllReceivers);
} else {
  test(`Store API acceptance: ${inProcessSidecar.name}`, (t) => t.skip('prometheus not on PATH'));
}
