import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createWebhookActivities } from '../../activities/webhook-delivery.js';
import { createLogger } from '../../src/kernel/logger.js';
import { OutboxRelay } from '../../src/temporal/outbox-relay.js';
import { createTestContext, policyBody, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';

/** The receiver recipe of docs/api.md, run as written, must accept a real delivery and refuse a forged one. */
let ctx: TestContext;
let child: ChildProcess | undefined;
const recipeFile = path.resolve('test/e2e/.recipe-receiver.mjs');

beforeAll(async () => {
  ctx = await createTestContext({ allowPrivateUrls: true, ownDatabase: true });
});
afterAll(async () => {
  child?.kill();
  fs.rmSync(recipeFile, { force: true });
  await ctx?.close();
});

function recipeFromDocs(): string {
  const doc = fs.readFileSync(path.resolve('docs/api.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Verifying a delivery'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('no js block in the verification section of docs/api.md');
  return match[1]!;
}

test('the documented verification recipe accepts a signed delivery and rejects a forged one', async () => {
  const a = await ctx.account();
  const endpointReq = await a.test.post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/placeholder', events: ['authorize.approved'] });
  const secret: string = endpointReq.body.secret;

  // The recipe verbatim, plus only what starts it listening and reports its port.
  fs.writeFileSync(recipeFile, `${recipeFromDocs()}\nconst server = app.listen(0, '127.0.0.1', () => process.send(server.address().port));\n`);
  child = fork(recipeFile, { env: { ...process.env, WEBHOOK_SECRET: secret }, stdio: 'ignore' });
  const port = await new Promise<number>((resolve, reject) => {
    child!.once('message', (m) => resolve(Number(m)));
    child!.once('exit', (code) => reject(new Error(`recipe exited with ${code}`)));
  });
  await a.test.patch(`/v1/webhook-endpoints/${endpointReq.body.id}`, { url: `http://127.0.0.1:${port}/webhooks/spend` });

  const policy = (await a.test.post('/v1/policies', policyBody())).body;
  const agent = (await a.test.post('/v1/agents', { name: 'x', policy_id: policy.id })).body;
  await a.test.post('/v1/authorize', { agent_id: agent.id, amount: 100, currency: 'USD', vendor: 'ok.example' });
  const relay = new OutboxRelay({ accountId: a.id, db: ctx.database.db, gateway: new FakeInlineGateway({ db: ctx.database.db, signer: ctx.signer }), log: createLogger('silent') });
  await relay.tick(new Date(Date.now() + 600_000));
  const delivery = await ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', a.id).executeTakeFirstOrThrow();

  const activities = createWebhookActivities({ db: ctx.database.db, allowPrivateUrls: true });
  expect(await new MockActivityEnvironment().run(activities.deliverWebhook, { deliveryId: delivery.id })).toMatchObject({ status: 'delivered', statusCode: 204 });

  const forged = await fetch(`http://127.0.0.1:${port}/webhooks/spend`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}` },
    body: '{"id":"evt_forged"}',
  });
  expect(forged.status).toBe(400);
});
