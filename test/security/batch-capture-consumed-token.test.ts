/**
 * A batch's rule 1 decides in memory which approval a swipe takes, from a read made under the
 * batch's agent locks; a token consumed meanwhile (`POST /v1/tokens/verify` with `consume` takes
 * no agent lock) must not be captured too. The batch's captures run as its precondition, each only
 * while still uncaptured with its token unused: otherwise nothing of the batch is written
 * (PreconditionFailed; the batch is then decided again one by one).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { captureTaken } from '../../src/authorization/batch.repository.js';
import { capturedRow } from '../../src/capture/capture.service.js';
import { findDecisionById } from '../../src/decisions/decisions.repository.js';
import { consumeToken } from '../../src/decisions/decisions.repository.js';
import { executeTogether, PreconditionFailed } from '../../src/db/statements.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
  const p = await acct.test.post('/v1/policies', policyBody({}));
  agentId = (await acct.test.post('/v1/agents', { name: 'card', policy_id: p.body.id })).body.id;
});
afterAll(() => ctx?.close());

async function approval() {
  const res = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
  expect(res.body.decision).toBe('approved');
  return (await findDecisionById(ctx.database.db, res.body.decision_id))!;
}

test('a token consumed after the batch read its approval: the capture refuses, and nothing the batch wrote stays', async () => {
  const row = await approval();
  const now = new Date();
  expect(await consumeToken(ctx.database.db, row.id, now)).toBeDefined();
  await expect(executeTogether(ctx.database.db, [], { precondition: captureTaken([capturedRow(row, 100, now)]), preconditionRows: 1 })).rejects.toBeInstanceOf(PreconditionFailed);
  expect(await findDecisionById(ctx.database.db, row.id)).toMatchObject({ capture_status: 'uncaptured', captured_amount: null });
});

test('one of two approvals consumed: the batch writes neither capture', async () => {
  const [a, b] = [await approval(), await approval()];
  const now = new Date();
  await consumeToken(ctx.database.db, b.id, now);
  await expect(executeTogether(ctx.database.db, [], { precondition: captureTaken([capturedRow(a, 100, now), capturedRow(b, 100, now)]), preconditionRows: 2 })).rejects.toBeInstanceOf(PreconditionFailed);
  expect(await findDecisionById(ctx.database.db, a.id)).toMatchObject({ capture_status: 'uncaptured' });
});

test('an approval still usable is captured by the same statement', async () => {
  const row = await approval();
  const now = new Date();
  await executeTogether(ctx.database.db, [], { precondition: captureTaken([capturedRow(row, 100, now)]), preconditionRows: 1 });
  expect(await findDecisionById(ctx.database.db, row.id)).toMatchObject({ capture_status: 'captured', captured_amount: 100 });
});
