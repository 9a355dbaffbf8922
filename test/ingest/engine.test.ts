import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { MatchType } from '../../src/index/types.js';
import { bitsHex, decodeSelected, openSmallDb, tempDir } from '../support/db.js';
import { parse, rawSeries, requestOf, series, thanosRequest } from './support.js';

const tmp = tempDir('strata-parse-write-');
after(() => tmp.remove());

test('a parsed batch appends to the engine and reads back: tenant label, timestamps, stale marker', async () => {
  const db = await openSmallDb(`${tmp.dir}/a`);
  try {
    const first = parse(thanosRequest([series(['__name__', 'up', 'job', 'a'], [[1000n, 1], [2000n, 0]]), series(['b', '1', 'a', '2'])], 'acme'));
    assert.equal(db.append(first.batch).appended, 2);
    const stale = parse(requestOf([rawSeries(['__name__', 'up', 'job', 'a'], [[3000n, 0x7ff0000000000002n]])], 'acme'));
    const r = db.append(stale.batch);
    assert.equal(r.appended, 1);
    assert.equal(r.created, 0, 'the same label bytes and hash find the series made by the first request');
    const got = decodeSelected(db.querier().select([{ type: MatchType.EQ, name: 'tenant_id', value: 'acme' }], 0, 10_000));
    assert.deepEqual(got.map((s) => s.labels), [['__name__', 'up', 'job', 'a', 'tenant_id', 'acme']]);
    assert.deepEqual(got[0]!.t, [1000, 2000, 3000]);
    assert.deepEqual(got[0]!.v, [bitsHex(1), bitsHex(0), '7ff0000000000002']);
  } finally {
    await db.close();
  }
});
