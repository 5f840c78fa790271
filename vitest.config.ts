import { defineConfig } from 'vitest/config';
import { dependsOnStorage, testFiles } from './test/support/storage-rule.js';

/**
 * SPEND_AUTH_TEST_SCOPE=storage: only the files whose behaviour can depend on storage
 * (test/support/storage-rule.ts). CI runs the whole suite on PostgreSQL and this scope again on the
 * embedded database; `npm test` alone runs every file.
 */
const storageOnly = process.env.SPEND_AUTH_TEST_SCOPE === 'storage';
const include = storageOnly ? testFiles('test').filter(dependsOnStorage) : ['test/**/*.test.ts'];

export default defineConfig({
  test: {
    include,
    globalSetup: ['test/support/global-setup.ts'],
    // API responses are checked against the OpenAPI document (test/support/openapi-conformance.ts).
    setupFiles: ['test/support/openapi-conformance.setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files are independent (own accounts, or their own embedded database); use both cores.
    maxWorkers: 2,
    // Each worker process runs many files one after another, loading the app, its OpenAPI
    // validators and PGlite once rather than once per file (docs/testing.md, "One process, many
    // files"): a file closes what it opens and leaves no fake timers or environment behind.
    isolate: false,
    // The slowest files first in each suite's output (CI prints it, docs/testing.md), then vitest's summary last.
    reporters: ['./test/support/slowest-files-reporter.ts', 'default'],
  },
});
