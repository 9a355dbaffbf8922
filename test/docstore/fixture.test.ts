import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { writeFixture } from '../fixtures/records/make-fixture.js';
import { contents, files, openSmall, rmTemp, tempDir } from './support/store-fixtures.js';

const frozen = new URL('../fixtures/records/v1', import.meta.url).pathname;
const expected = JSON.parse(readFileSync(new URL('../fixtures/records/expected.json', import.meta.url), 'utf8')) as unknown;

describe('record store: frozen format fixture (v1)', () => {
  const dirs: string[] = [];
  const fresh = () => { const d = tempDir(); dirs.push(d); return d; };
  after(() => dirs.forEach(rmTemp));

  test('reads the checked-in segments to exactly the expected records and last ids', async () => {
    const dir = fresh();
    cpSync(frozen, dir, { recursive: true });
    const store = await openSmall(dir);
    assert.deepEqual(JSON.parse(JSON.stringify(contents(store))), expected);
    await store.close();
  });

  test('writes the same ops to the same bytes', async () => {
    const dir = fresh();
    const held = await writeFixture(dir);
    assert.deepEqual(JSON.parse(JSON.stringify(held)), expected);
    assert.deepEqual(files(dir), files(frozen));
    for (const name of files(frozen)) {
      assert.ok(readFileSync(join(dir, name)).equals(readFileSync(join(frozen, name))), `${name} is byte for byte the fixture`);
    }
  });
});
