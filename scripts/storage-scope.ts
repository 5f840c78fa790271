/**
 * Lists where each test file runs: "both" (PostgreSQL and the embedded engine, with the reasons
 * test/support/storage-rule.ts found) or "once" (PostgreSQL in CI).
 *
 *   npx tsx scripts/storage-scope.ts            every file
 *   npx tsx scripts/storage-scope.ts --both     only the files that run on both
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { storageReasons } from '../test/support/storage-rule.js';

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []));

const all = files('test').sort();
let both = 0;
for (const file of all) {
  const reasons = storageReasons(readFileSync(file, 'utf8'));
  if (reasons.length) both += 1;
  if (reasons.length || !process.argv.includes('--both')) console.log(`${reasons.length ? 'both' : 'once'}  ${file}${reasons.length ? `  (${reasons.join('; ')})` : ''}`);
}
console.log(`${both} of ${all.length} files run on both databases`);
