/**
 * The worker supervisor on a real Temporal server: stop() while the worker is still starting leaves
 * no worker behind (nothing polls the task queue afterwards).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/kernel/logger.js';
import { superviseWorker } from '../../src/temporal/engine.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { openServer, serverModeOrSkip, type ServerEnvironment } from '../support/temporal-server.js';

const mode = serverModeOrSkip('worker supervisor');

describe.skipIf(!mode)('superviseWorker', () => {
  let server: ServerEnvironment;
  let ctx: TestContext;

  beforeAll(async () => {
    server = await openServer(mode!);
    ctx = await createTestContext();
  }, 120_000);
  afterAll(async () => {
    await ctx?.close();
    await server?.teardown();
  });

  test('stop() during the worker start: once it resolves, no worker is left running', async () => {
    const taskQueue = `supervisor-test-${Date.now().toString(36)}`;
    const settings = { address: server.address, namespace: server.namespace, taskQueue };
    const supervised = superviseWorker(settings, { db: ctx.database.db, signer: ctx.signer, allowPrivateUrls: false }, createLogger('silent'));
    // The start is in flight (connecting, registering, bundling): stop now.
    await new Promise((r) => setTimeout(r, 50));
    await supervised.stop();

    // A workflow started afterwards is never picked up: its first task stays unstarted.
    const handle = await server.env.client.workflow.start('heldAuthorization', {
      taskQueue,
      workflowId: `held-supervisor-${taskQueue}`,
      args: [{ decisionId: 'dec_supervisor', expiresAt: new Date(Date.now() + 3_600_000).toISOString() }],
    });
    await new Promise((r) => setTimeout(r, 3_000));
    const history = await handle.fetchHistory();
    expect(history.events?.map((e) => Number(e.eventType))).toEqual([1, 5]); // started, task scheduled: nobody took it
    await handle.terminate('test over');
  }, 60_000);
});
