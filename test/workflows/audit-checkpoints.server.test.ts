/**
 * The daily audit checkpoints on a real Temporal server (AUDIT_CHECKPOINT_WEBHOOKS on): the worker
 * creates the Schedule, a run sends each subscribed account's checkpoint as an `audit.checkpoint`
 * webhook to a real receiver, signed like every delivery, and a repeated run sends nothing again;
 * with the setting off the worker deletes the Schedule. The run's history is recorded for the
 * replay tests (RECORD_HISTORIES=1, scripts/record-histories.sh).
 */
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScheduleNotFoundError } from '@temporalio/client';
import { AUDIT_CHECKPOINT_SCHEDULE_ID } from '../../src/temporal/periodic-jobs.js';
import { ensureSchedules } from '../../src/temporal/worker.js';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import type { auditCheckpoints } from '../../workflows/audit-checkpoints.js';
import { policyBody, type TestAccount } from '../support/context.js';
import { openEngineStack, type EngineStack } from '../support/engine-stack.js';
import { startReceiver } from '../support/receiver.js';
import { recordHistory } from '../support/record-history.js';
import { serverModeOrSkip } from '../support/temporal-server.js';
import { until } from '../support/wait.js';

const mode = serverModeOrSkip('audit-checkpoints');

describe.skipIf(!mode)('daily audit checkpoints on a Temporal server', () => {
  let stack: EngineStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let acct: TestAccount;
  let secret: string;
  let seq = 0;

  beforeAll(async () => {
    stack = await openEngineStack(mode!, { noWorker: true, deps: { auditCheckpointWebhooks: true } });
    stack.settings.auditCheckpointWebhooks = true;
    await stack.startWorker();
    receiver = await startReceiver();
    acct = await stack.ctx.account('growth');
    const endpoint = await acct.test.post('/v1/webhook-endpoints', { url: receiver.url, events: ['audit.checkpoint'] });
    secret = endpoint.body.secret;
    expect((await acct.test.post('/v1/policies', policyBody())).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  const temporal = () => stack.server.env.client;
  const run = (day: string) =>
    temporal().workflow.execute<typeof auditCheckpoints>('auditCheckpoints', { taskQueue: stack.settings.taskQueue, workflowId: `audit-checkpoints-test-${++seq}`, args: [{ day }] });
  const checkpointsReceived = () => receiver.received.filter((r) => r.headers['x-service-event'] === 'audit.checkpoint');

  test('the worker created the Schedule: every day at 00:10 UTC, overlapping runs skipped', async () => {
    const description = await temporal().schedule.getHandle(AUDIT_CHECKPOINT_SCHEDULE_ID).describe();
    expect(description.action).toMatchObject({ workflowType: 'auditCheckpoints', taskQueue: stack.settings.taskQueue });
    expect(description.spec.calendars).toEqual([expect.objectContaining({ hour: [{ start: 0, end: 0, step: 1 }], minute: [{ start: 10, end: 10, step: 1 }] })]);
    expect(description.spec.timezone).toBe('UTC');
    expect(description.policies.overlap).toBe('SKIP');
  });

  test('a run delivers the checkpoint to the subscribed endpoint, signed, and it verifies against the JWKS and the chain', async () => {
    const result = await run('2026-11-21');
    expect(result).toMatchObject({ day: '2026-11-21', enabled: true, sent: 1 });
    await recordHistory(temporal(), `audit-checkpoints-test-${seq}`, 'audit-checkpoints');
    const [delivery] = await until('the checkpoint delivery', () => (checkpointsReceived().length ? checkpointsReceived() : undefined), 30_000, 200);
    expect(verifyWebhookSignature(delivery!.body, delivery!.headers['x-service-signature'] as string, secret)).toBe(true);
    const body = JSON.parse(delivery!.body);
    expect(body).toMatchObject({ event: 'audit.checkpoint', data: { day: '2026-11-21' } });
    const jwks = createLocalJWKSet((await stack.ctx.raw('/v1/.well-known/jwks.json')).body);
    const { payload } = await jwtVerify(body.data.checkpoint, jwks, { typ: 'audit-checkpoint+jwt', audience: acct.id });
    expect(payload).toMatchObject({ livemode: false, sequence: body.data.sequence, head_hash: body.data.head_hash });
    expect((await acct.test.get(`/v1/audit-logs/verify?checkpoint=${body.data.checkpoint}`)).body).toMatchObject({ valid: true, checkpoint_check: 'matched' });
  });

  test('a second run for the same day sends nothing again', async () => {
    expect(await run('2026-11-21')).toMatchObject({ sent: 0, alreadySent: 1 });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(checkpointsReceived()).toHaveLength(1);
  });

  test('with the setting off, setting up the schedules deletes this one', async () => {
    const outcome = await ensureSchedules({ ...stack.settings, auditCheckpointWebhooks: false });
    expect(outcome[AUDIT_CHECKPOINT_SCHEDULE_ID]).toBe('deleted');
    await expect(temporal().schedule.getHandle(AUDIT_CHECKPOINT_SCHEDULE_ID).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect(await ensureSchedules({ ...stack.settings, auditCheckpointWebhooks: false })).not.toHaveProperty(AUDIT_CHECKPOINT_SCHEDULE_ID);
  });
});
