import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { SERVER_NODE_FLAGS } from '../../src/config/node-flags.js';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const flags = SERVER_NODE_FLAGS.join(' ');

describe('the node flags strata serve runs with', () => {
  test('bin/strata.js passes them on its first line', () => {
    assert.equal(read('bin/strata.js').split('\n')[0], `#!/usr/bin/env -S node ${flags}`);
  });

  test('npm start passes them', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts.start, `exec node ${flags} bin/strata.js serve`);
  });

  test("the Docker and systemd examples (docs/operations.md) pass them", () => {
    const readme = read('docs/operations.md');
    assert.ok(readme.includes(`CMD ["node", ${SERVER_NODE_FLAGS.map((f) => JSON.stringify(f)).join(', ')}, "bin/strata.js", "serve"`), 'Dockerfile CMD');
    assert.ok(readme.includes(`ExecStart=/usr/bin/node ${flags} bin/strata.js serve`), 'systemd ExecStart');
  });
});
