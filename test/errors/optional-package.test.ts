// Optional peer dependencies (the S3 SDK, Chart.js): a missing one is a
// clear error naming the feature and the package to install; other errors
// pass through unchanged.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { loadOptional, loadOptionalSync, MissingOptionalPackageError } from '../../src/errors/optional-package.js';

const ABSENT = 'strata-test-absent-package';

describe('optional packages', () => {
  test('a dynamic import of a package that is not installed names the feature and the install command', async () => {
    await assert.rejects(loadOptional('an S3 bucket', [ABSENT], () => import(ABSENT)), (err: unknown) => {
      assert.ok(err instanceof MissingOptionalPackageError);
      assert.equal(err.message, `an S3 bucket needs the optional package ${ABSENT}, which is not installed: npm install ${ABSENT}`);
      return true;
    });
  });

  test('a require.resolve of a package that is not installed does the same', () => {
    assert.throws(() => loadOptionalSync('strata bench --report', [ABSENT, 'other'], () => createRequire(import.meta.url).resolve(ABSENT)),
      /^MissingOptionalPackageError: strata bench --report needs the optional packages strata-test-absent-package, other, which are not installed: npm install strata-test-absent-package other$/);
  });

  test('a missing module that is not one of the optional packages is not disguised', async () => {
    const file = './no-such-file.js';
    await assert.rejects(loadOptional('an S3 bucket', [ABSENT], () => import(file)), (err: unknown) => !(err instanceof MissingOptionalPackageError));
    await assert.rejects(loadOptional('an S3 bucket', [ABSENT], () => Promise.reject(new Error('boom'))), /^Error: boom$/);
  });

  test('an installed package loads', async () => {
    const yaml = await loadOptional('YAML', ['yaml'], () => import('yaml'));
    assert.equal(typeof yaml.parse, 'function');
  });
});
