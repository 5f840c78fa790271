import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    // API responses are checked against the OpenAPI document (test/support/openapi-conformance.ts).
    setupFiles: ['test/support/openapi-conformance.setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Test files are independent (own accounts, or their own embedded database); use both cores.
    maxWorkers: 2,
  },
});
