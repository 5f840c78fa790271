/**
 * Lints the OpenAPI document the app serves: writes it, from the app's own generator, to a
 * temporary directory and runs Redocly's recommended rules on it, warnings counting as errors.
 * Exits with Redocly's status.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../src/http/openapi.js';

/**
 * The operational endpoints and the public documents answer no 4XX at all (no key, no input, no
 * rate limit), so the recommended rule that every operation lists one is waived for exactly these
 * operations.
 */
const NO_4XX = ['/healthz', '/readyz', '/metrics', '/docs', '/dashboard', '/v1/openapi.json', '/v1/.well-known/jwks.json'];

const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
try {
  writeFileSync(join(dir, 'openapi.json'), JSON.stringify(buildOpenApiDocument(), null, 2));
  // recommended-strict: the recommended rules with every warning raised to an error, so CI fails on any.
  writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended-strict\n');
  const ignored = NO_4XX.map((path) => `    - '#/paths/${path.replaceAll('/', '~1')}/get/responses'`).join('\n');
  writeFileSync(join(dir, '.redocly.lint-ignore.yaml'), `openapi.json:\n  operation-4xx-response:\n${ignored}\n`);
  const redocly = join(import.meta.dirname, '..', 'node_modules', '.bin', 'redocly');
  const run = spawnSync(redocly, ['lint', '--config', join(dir, 'redocly.yaml'), ...process.argv.slice(2), join(dir, 'openapi.json')], { stdio: 'inherit' });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
