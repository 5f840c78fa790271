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
    let lines: string[] = [];
    try {
      lines = readFileSync(join(dir, 'counts'), 'utf8').split('\n').filter(Boolean);
    } catch {
      // No file checked anything.
    }
    const counts = lines.map((line) => line.split(' ').map(Number) as [number, number]);
    const responses = counts.reduce((sum, [r]) => sum + r, 0);
    const webhooks = counts.reduce((sum, [, w]) => sum + w, 0);
    console.log(`[tests] ${responses} API responses and ${webhooks} webhook deliveries validated against the OpenAPI document (${counts.length} test files)`);
    rmSync(dir, { recursive: true, force: true });
  };
}
