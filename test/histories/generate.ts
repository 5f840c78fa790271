/**
 * Regenerates the hand-built history fixtures from test/support/history-builder.ts:
 *   npx tsx test/histories/generate.ts
 * Only the names in HELD_SCENARIOS are written; recorded fixtures beside them are never touched.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertWellFormed, HELD_SCENARIOS, heldAuthorizationHistory } from '../support/history-builder.js';

const dir = path.dirname(fileURLToPath(import.meta.url));

for (const [name, options] of Object.entries(HELD_SCENARIOS)) {
  const history = heldAuthorizationHistory(options);
  assertWellFormed(history); // throws before anything is written
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(history, null, 2)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), file)} (${history.events.length} events)`);
}
