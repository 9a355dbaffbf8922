// A write of many native histograms is appended in steps (writer.ts,
// appendHistogramsInTurns), each step a range of the histogram batch: every
// histogram stored once, rejections counted over all steps and named by
// the right series.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/db/db.js';
import { Writer } from '../../src/ingest/writer.js';
import { CodecPool } from '../../src/pool/codec-pool.js';
import { openSmallDb, tempDir } from '../support/db.js';
import { histogram, series, thanosRequest } from './support.js';

const tmp = tempDir('strata-histogram-steps-');
const pool = new CodecPool({ workers: 2 });
let db: Db;
let writer: Writer;

before(async () => {
  db = await openSmallDb(`${tmp.dir}/db`);
  writer = new Writer(db, pool, { tenantLabel: 'tenant_id' });
});
after(async () => {
  await db.close();
  await pool.close();
  tmp.remove();
});

test('a write of 1,300 histogram series is stored whole; rejections in a later step are named by their series', async () => {
  const n = 1300;
  // Series 1250 and on also carry a histogram older than their first: out of order, in the last step.
  const req = thanosRequest(Array.from({ length: n }, (_, i) => series(['__name__', 'steps', 'i', String(i)], [], {
    histograms: i >= 1250 ? [histogram(5000n), histogram(4000n)] : [histogram(5000n)],
  })), 'acme');
  const created = db.counters.seriesCreated;
  const out = await writer.write(req, { dialect: 'thanos' });
  assert.equal(out.histograms, n);
  assert.equal(db.counters.seriesCreated - created, n);
  assert.equal(db.counters.histogramsAppended, n);
  assert.match(out.error!.message, /^50 histogram samples rejected: out of order sample \(50, first \{__name__="steps", i="1250", tenant_id="acme"\} at 4000\)$/);

  // Sent again, one step's worth later: every one a duplicate or newer, none created.
  const again = await writer.write(thanosRequest(Array.from({ length: n }, (_, i) => series(['__name__', 'steps', 'i', String(i)], [], { histograms: [histogram(6000n)] })), 'acme'), { dialect: 'thanos' });
  assert.equal(again.error, undefined);
  assert.equal(again.histograms, n);
  assert.equal(db.counters.seriesCreated - created, n);
  assert.equal(db.counters.histogramsAppended, 2 * n);
});
