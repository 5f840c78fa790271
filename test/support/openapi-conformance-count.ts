import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where test files leave their counts of responses checked against the OpenAPI document. */
export const CONFORMANCE_DIR_ENV = 'SPEND_AUTH_TEST_CONFORMANCE_DIR';

/** Called by the global setup, before any test process starts (they inherit the variable). */
export function startConformanceCount(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'spend-auth-conformance-'));
  process.env[CONFORMANCE_DIR_ENV] = dir;
  return () => {
    let counts: number[] = [];
    try {
      counts = readFileSync(join(dir, 'counts'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      // No file checked any response.
    }
    const total = counts.reduce((a, b) => a + b, 0);
    console.log(`[tests] ${total} API responses validated against the OpenAPI document (${counts.length} test files)`);
    rmSync(dir, { recursive: true, force: true });
  };
}
