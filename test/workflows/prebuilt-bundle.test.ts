/**
 * Production images bundle the workflows ahead of time (`npm run build:workflows` writes
 * dist/workflow-bundle.js) and the worker loads that file. Here: the worker looks where the script
 * writes, and a bundle loaded from a file (`workflowBundle: { codePath }`) runs the workflows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, expect, test } from 'vitest';
import { WORKFLOW_BUNDLE_PATH, WORKFLOWS_PATH } from '../../src/temporal/worker.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-bundle-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('from a checkout the worker bundles workflows/index.ts, or loads dist/workflow-bundle.js when built', () => {
  expect(WORKFLOWS_PATH).toBe(path.join(ROOT, 'workflows', 'index.ts'));
  expect(WORKFLOW_BUNDLE_PATH).toBe(path.join(ROOT, 'dist', 'workflow-bundle.js'));
});

test('a bundle written to a file replays a recorded held-authorization history', { timeout: 90_000 }, async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch {
    // A Runtime already exists in this process: keep it.
  }
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('ERROR') });
  const codePath = path.join(dir, 'workflow-bundle.js');
  fs.writeFileSync(codePath, code);
  const history = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'histories', 'approved-by-signal.json'), 'utf8'));
  const workflowId = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? 'held-replay';
  await expect(Worker.runReplayHistory({ workflowBundle: { codePath }, replayName: 'prebuilt-bundle' }, history, workflowId)).resolves.toBeUndefined();
});
