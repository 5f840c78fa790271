// Mutation testing of the money-critical modules (docs/testing.md). One module at a time:
//   MUTATION_MODULE=tokens npm run test:mutation
// The modules, what each mutates and the fast tests that judge it: test/mutation/modules.json.
import fs from 'node:fs';

const modules = JSON.parse(fs.readFileSync(new URL('./test/mutation/modules.json', import.meta.url), 'utf8'));
const name = process.env.MUTATION_MODULE;
if (name && !modules[name]) throw new Error(`MUTATION_MODULE=${name}: not one of ${Object.keys(modules).join(', ')}`);
const chosen = name ? [modules[name]] : Object.values(modules);
const out = `test-artifacts/mutation/${name ?? 'all'}`;
const sandboxed = chosen.some((m) => m.coverageAnalysis === 'off');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // Workflow code runs in the workflow sandbox, whose coverage counts never reach the test
  // process (test/support/replay-bundle.ts), and no test imports it (it is bundled from its path):
  // every mutant there runs every test of the module, not only the "related" test files.
  vitest: { configFile: 'vitest.mutation.config.ts', related: !sandboxed },
  coverageAnalysis: sandboxed ? 'off' : 'perTest',
  mutate: chosen.flatMap((m) => m.mutate),
  // Unchanged mutants and tests keep their last result (the file lives with the reports).
  incremental: true,
  incrementalFile: `${out}/stryker-incremental.json`,
  // No 'html': the mutation-testing-elements package this registry serves lacks the script the
  // HTML report embeds. The JSON report opens in https://stryker-mutator.io/report-viewer/.
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `${out}/mutation.json` },
  // Two cores, shared: one test process at a time.
  concurrency: 1,
  timeoutMS: 60_000,
  // The Python client's virtualenv holds symlinked directories (lib64) the sandbox copy cannot take.
  ignorePatterns: ['test-artifacts', 'dist', '.data', 'bench', 'docker', '.ci', 'clients/python/.venv', '.stryker-tmp'],
  tempDirName: '.stryker-tmp',
  // Stryker rewrites the sandbox's tsconfig through the TypeScript JS API, which TypeScript 7
  // (native) no longer has; ours has no extends or references to rewrite, so point it at none.
  tsconfigFile: 'tsconfig.none.json',
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 85, break: null },
};
