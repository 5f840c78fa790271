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
import { afterAll, describe, expect, test } from 'vitest';
import { WORKFLOW_BUNDLE_PATH, WORKFLOW_TRACED_BUNDLE_PATH, WORKFLOWS_PATH, workflowBundleOptions, workflowSource } from '../../src/temporal/worker.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spend-auth-bundle-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('from a checkout the worker bundles workflows/index.ts; the compiled build may load dist/workflow-bundle.js', () => {
  expect(WORKFLOWS_PATH).toBe(path.join(ROOT, 'workflows', 'index.ts'));
  expect(WORKFLOW_BUNDLE_PATH).toBe(path.join(ROOT, 'dist', 'workflow-bundle.js'));
  expect(WORKFLOW_TRACED_BUNDLE_PATH).toBe(path.join(ROOT, 'dist', 'workflow-bundle-traced.js'));
});

test.each([
  ['plain', false],
  ['traced (with the tracing interceptors)', true],
] as const)('a %s bundle written to a file replays a recorded held-authorization history', { timeout: 90_000 }, async (_label, traced) => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch {
    // A Runtime already exists in this process: keep it.
  }
  const { code } = await bundleWorkflowCode({ ...workflowBundleOptions(WORKFLOWS_PATH, traced), logger: new DefaultLogger('ERROR') });
  const codePath = path.join(dir, traced ? 'workflow-bundle-traced.js' : 'workflow-bundle.js');
  fs.writeFileSync(codePath, code);
  const history = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'histories', 'approved-by-signal.json'), 'utf8'));
  const workflowId = history.events[0]?.workflowExecutionStartedEventAttributes?.workflowId ?? 'held-replay';
  // The traced bundle's span sink, never called while replaying.
  const sinks = traced ? { sinks: { exporter: { export: { fn: () => undefined } } } } : {};
  await expect(Worker.runReplayHistory({ workflowBundle: { codePath }, ...sinks, replayName: 'prebuilt-bundle' }, history, workflowId)).resolves.toBeUndefined();
});

describe('which workflows the worker runs: never a stale prebuilt bundle', () => {
  const setup = () => {
    const root = fs.mkdtempSync(path.join(dir, 'dist-'));
    const workflowsDir = path.join(root, 'workflows');
    fs.mkdirSync(workflowsDir);
    const workflowsPath = path.join(workflowsDir, 'index.js');
    const bundlePath = path.join(root, 'workflow-bundle.js');
    fs.writeFileSync(workflowsPath, '// compiled');
    fs.writeFileSync(bundlePath, '// bundle');
    return { workflowsPath, bundlePath, touch: (p: string, secondsAgo: number) => fs.utimesSync(p, new Date(Date.now() - secondsAgo * 1000), new Date(Date.now() - secondsAgo * 1000)) };
  };

  test('the compiled build with a bundle at least as new as its workflows runs the bundle', () => {
    const { workflowsPath, bundlePath, touch } = setup();
    touch(workflowsPath, 60);
    expect(workflowSource({ compiled: true, bundlePath, workflowsPath })).toEqual({ workflowBundle: { codePath: bundlePath } });
  });

  test('a compiled workflow newer than the bundle (rebuilt without build:workflows): the sources are bundled instead', () => {
    const { workflowsPath, bundlePath, touch } = setup();
    touch(bundlePath, 60);
    expect(workflowSource({ compiled: true, bundlePath, workflowsPath })).toEqual({ workflowsPath });
  });

  test('from a checkout the sources are bundled even when a dist bundle exists', () => {
    const { workflowsPath, bundlePath } = setup();
    expect(workflowSource({ compiled: false, bundlePath, workflowsPath })).toEqual({ workflowsPath });
  });
});
