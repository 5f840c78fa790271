import { createLogger } from '../../src/kernel/logger.js';
import { OutboxRelay } from '../../src/temporal/outbox-relay.js';
import type { TestAccount, TestContext } from './context.js';
import { FakeInlineGateway } from './fake-gateway.js';

/**
 * One approved decision of the account, its event relayed into deliveries as the outbox relay
 * would (with the FAKE inline gateway: nothing is started), and the pending deliveries to the
 * endpoint. The caller runs the delivery activity on them.
 */
export async function pendingDeliveriesAfterOneEvent(ctx: TestContext, acct: TestAccount, endpointId: string, agentId?: string) {
  let agent = agentId;
  if (!agent) {
    const policy = (await acct.test.post('/v1/policies', { name: 'deliveries', budget_monthly: 100_000, budget_single_max: 10_000 })).body;
    agent = (await acct.test.post('/v1/agents', { name: 'deliveries', policy_id: policy.id })).body.id as string;
  }
  await acct.test.post('/v1/authorize', { agent_id: agent, amount: 100, currency: 'USD', vendor: 'ok.example' });
  const relay = new OutboxRelay({ accountId: acct.id, db: ctx.database.db, gateway: new FakeInlineGateway({ db: ctx.database.db, signer: ctx.signer }), log: createLogger('silent') });
  // Twice: the first tick fans the event out into deliveries, the second starts them.
  const later = new Date(Date.now() + 600_000);
  await relay.tick(later);
  await relay.tick(later);
  return ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).where('status', '=', 'pending').execute();
}
