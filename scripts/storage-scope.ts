/**
 * Lists where each test file runs: "both" (PostgreSQL and the embedded engine, with the reasons
 * test/support/storage-rule.ts found) or "once" (PostgreSQL in CI).
 *
 *   npx tsx scripts/storage-scope.ts            every file
 *   npx tsx scripts/storage-scope.ts --both     only the files that run on both
 */
import { readFileSync } from 'node:fs';
import { storageReasons, testFiles } from '../test/support/storage-rule.js';

const all = testFiles('test').sort();
let both = 0;
for (const file of all) {
  const reasons = storageReasons(readFileSync(file, 'utf8'));
  if (reasons.length) both += 1;
  if (reasons.length || !process.argv.includes('--both')) console.log(`${reasons.length ? 'both' : 'once'}  ${file}${reasons.length ? `  (${reasons.join('; ')})` : ''}`);
}
console.log(`${both} of ${all.length} files run on both databases`);
