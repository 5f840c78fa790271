import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.js';

// Mutation runs (stryker.config.mjs): only the fast unit and API tests of the module under test.
const modules = JSON.parse(fs.readFileSync(new URL('./test/mutation/modules.json', import.meta.url), 'utf8')) as Record<string, { tests: string[] }>;
const name = process.env.MUTATION_MODULE;
const include = [...new Set((name ? [modules[name]!] : Object.values(modules)).flatMap((m) => m.tests))];

/**
 * The workflow modules' branch-by-branch server files kill most of their mutants, in seconds; the
 * replay files take longer and kill fewer. Run first, they let a killed mutant's run stop early
 * (Stryker stops at the first failing test).
 */
class PathsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = (f: TestSpecification) => (f.moduleId.endsWith('.paths.server.test.ts') ? 0 : 1);
    return [...sorted].sort((a, b) => first(a) - first(b));
  }
}

export default defineConfig({
  // isolate: each file in a fresh process, as StrykerJS 9.6.1's vitest runner was measured with
  // (docs/testing.md, "Mutation testing"): a mutant's state never carries into the next file.
  // maxConcurrency: the workflow files' concurrent tests mostly wait on timers; letting them all
  // wait at once keeps each mutant's run short.
  test: { ...base.test, include, isolate: true, maxWorkers: 1, maxConcurrency: 40, sequence: { sequencer: PathsFirst }, reporters: ['default', fileURLToPath(new URL('./test/mutation/file-failure-reporter.ts', import.meta.url))] },
});
