/**
 * Setup file of every test file: fails a test whose API responses did not match the OpenAPI
 * document, and reports this file's counts of checked responses and webhook deliveries to the global teardown.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { takeProblems, takeValidatedCounts } from './openapi-conformance.js';
import { CONFORMANCE_DIR_ENV } from './openapi-conformance-count.js';

afterEach(() => {
  const problems = takeProblems();
  if (problems.length) throw new Error(`responses that do not match the OpenAPI document:\n- ${problems.join('\n- ')}`);
});

afterAll(() => {
  const dir = process.env[CONFORMANCE_DIR_ENV];
  const { responses, webhooks } = takeValidatedCounts();
  if (dir && responses + webhooks > 0) appendFileSync(join(dir, 'counts'), `${responses} ${webhooks}\n`);
});
