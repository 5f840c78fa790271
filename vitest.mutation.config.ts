import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// Mutation runs (stryker.config.mjs): only the fast unit and API tests of the module under test.
const modules = JSON.parse(fs.readFileSync(new URL('./test/mutation/modules.json', import.meta.url), 'utf8')) as Record<string, { tests: string[] }>;
const name = process.env.MUTATION_MODULE;
const include = [...new Set((name ? [modules[name]!] : Object.values(modules)).flatMap((m) => m.tests))];

export default defineConfig({
  // maxConcurrency: the workflow files' concurrent tests mostly wait on timers; letting them all
  // wait at once keeps each mutant's run short.
  test: { ...base.test, include, maxWorkers: 1, maxConcurrency: 40, reporters: ['default', fileURLToPath(new URL('./test/mutation/file-failure-reporter.ts', import.meta.url))] },
});
