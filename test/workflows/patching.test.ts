/**
 * How a workflow change is made safe for running workflows: the histories recorded from a real
 * server (test/histories/recorded-*.json, frozen for this release) must replay against every
 * later version. A new command behind `patched()` replays them; the same change without it fails
 * with a nondeterminism error. See docs/operations.md, "Changing a workflow safely".
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Runtime, type WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ReplaySession } from '../support/replay-recorder.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const HISTORIES_DIR = path.resolve(here, '../histories');
/** Every recorded history of a held request (the ones a deploy would find running). */
const RECORDED_HELD = fs
  .readdirSync(HISTORIES_DIR)
  .filter((f) => f.startsWith('recorded-') && f.endsWith('.json'))
  .filter((f) => JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, f), 'utf8')).events[0].workflowExecutionStartedEventAttributes.workflowType.name === 'heldAuthorization');

const bundles: Record<'patched' | 'unpatched', WorkflowBundle> = {} as never;
/** One replay Worker per bundle for the file (a Worker per history costs a V8 context and a core worker each). */
const sessions: Partial<Record<'patched' | 'unpatched', ReplaySession>> = {};

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } } });
  } catch {
    // A Runtime already exists in this process: keep it.
  }
  await Promise.all(
    (['patched', 'unpatched'] as const).map(async (variant) => {
      bundles[variant] = await bundleWorkflowCode({ workflowsPath: path.join(here, `fixtures/held-authorization-${variant}.ts`), logger: new DefaultLogger('ERROR') });
      sessions[variant] = new ReplaySession({ workflowBundle: bundles[variant], replayName: `patching-${variant}` });
    }),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(Object.values(sessions).map((s) => s.close()));
});

/** Rejects with what Worker.runReplayHistory would have thrown. */
const replay = async (variant: 'patched' | 'unpatched', file: string): Promise<undefined> => {
  const error = await sessions[variant]!.replay(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
  if (error !== undefined) throw error;
  return undefined;
};

describe('a change to heldAuthorization, against the histories recorded from the server', () => {
  test('there are recorded held-request histories to check against', () => {
    expect(RECORDED_HELD.length).toBeGreaterThanOrEqual(6);
  });

  test.each(RECORDED_HELD)('behind patched(): %s still replays', async (file) => {
    await expect(replay('patched', file)).resolves.toBeUndefined();
  });

  test.each(RECORDED_HELD)('without patched(): %s fails with a nondeterminism error', async (file) => {
    const error = await replay('unpatched', file).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(DeterminismViolationError);
  });
});
