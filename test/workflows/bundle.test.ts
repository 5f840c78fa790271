/**
 * The workflow code must bundle for the Worker's sandbox: no Node built-ins, no database or HTTP
 * code pulled in through a value import (activities are imported with `import type` only).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { expect, test } from 'vitest';

const WORKFLOWS_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../workflows/index.ts');

test('workflows/index.ts bundles for the workflow sandbox', { timeout: 60_000 }, async () => {
  // A failed import (fs, pg, crypto …) rejects here with the module chain that reached it.
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('ERROR') });

  expect(code).toContain('heldAuthorization');
  expect(code).toContain('approvalDecision');
  // Activity implementations and the service code behind them stay out of the bundle.
  expect(code).not.toContain('resolution.service');
  expect(code).not.toContain('createHeldActivities');
  expect(code).toContain('usageReport');
  expect(code).not.toContain('createUsageReportActivities');
});
