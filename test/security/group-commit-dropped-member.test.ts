/**
 * Attack (found by reading batch-decide.ts): a batch member dropped at the write still shaped the
 * decisions after it. A card swipe matched to an open approval (rule 1) frees that approval's
 * unused amount from the batch's in-memory spend; if the swipe's deadline then passes before the
 * batch writes, the swipe is dropped, yet a later request of the batch was already approved
 * against the freed money. Budget 1,000, an open approval of 1,000, a swipe of 100 that turns late,
 * then a request of 900: the 900 was approved (spend 1,900, verify valid); decided one at a time,
 * it is denied `budget_exceeded`. A dropped member must leave the batch as if it had never joined:
 * checked here as a property, each member of a batch dropped in turn, against the same requests
 * decided one by one. The swipe's lateness is made by its `checkInTime` (the rail's deadline
 * check), which lets it be decided and fails it at the write, as a deadline passing then does.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decide, groupDecisions } from '../../src/authorization/authorization.service.js';
import type { AuthorizationDeps } from '../../src/authorization/authorization.deps.js';
import type { RailRequest } from '../../src/authorization/rail-request.js';
import { DecisionWaiter } from '../../src/authorization/decision-waiter.js';
import { authenticate } from '../../src/keys/keys.service.js';
import type { Caller } from '../../src/kernel/caller.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { connectStripeIssuing } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let caller: Caller;
let railId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  caller = await authenticate(ctx.database.db, acct.test.key);
  railId = (await connectStripeIssuing(acct.test)).id;
});
afterAll(() => ctx?.close());

class Late extends Error {}

/** A swipe's rail request whose deadline passes after it was decided: `checkInTime` passes `inTime` calls, then throws. */
function swipeRequest(inTime: number): RailRequest {
  let calls = 0;
  const authorization_id = `iauth_drop${Math.random().toString(36).slice(2)}`;
  return {
    ref: { type: 'stripe_issuing', connection_id: railId, authorization_id },
    record: async () => {},
    checkInTime: () => {
      if (++calls > inTime) throw new Late('the rail was answered another way');
    },
    answerRow: () => ({
      connection_id: railId, authorization_id, account_id: acct.id, livemode: false, request_event_id: `evt_${authorization_id}`, agent_id: null, decision_id: null, outcome: 'decided',
      approved: true, reason_code: null, answer: JSON.stringify({}), counted_amount: 0, approved_amount: 0, increment: false, created_at: new Date(), updated_at: new Date(),
    }),
  };
}

type Spec = { kind: 'swipe' | 'authorize'; amount: number };

/** An agent with budget 1,000 and an open approval of 1,000 made by POST /v1/authorize. */
async function agentWithOpenApproval(): Promise<string> {
  const { agentId } = await agentWithPolicy(acct.test, { budget_monthly: 1_000, budget_single_max: 1_000 });
  const open = await acct.test.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor: 'shop.example' });
  expect(open.body.decision).toBe('approved');
  return agentId;
}

const inputOf = (agentId: string, s: Spec) => ({ agent_id: agentId, amount: s.amount, currency: 'USD', vendor: 'shop.example' });
const monthSpend = async (agentId: string) =>
  Number((await ctx.database.db.selectFrom('agent_spend').select('approved').where('agent_id', '=', agentId).where('period', 'like', 'M:%').executeTakeFirst())?.approved ?? 0);
const outcomeOf = (r: PromiseSettledResult<Awaited<ReturnType<typeof decide>>>) =>
  r.status === 'rejected' ? (r.reason instanceof Late ? 'dropped' : `error ${String(r.reason)}`) : `${r.value.decision.decision}:${r.value.decision.reason_code ?? ''}`;

/** The batch, in one group commit, the member at `drop` turning late at the write. */
async function asBatch(specs: Spec[], drop: number) {
  const agentId = await agentWithOpenApproval();
  const deps: AuthorizationDeps = { db: ctx.database.db, signer: ctx.signer, waiter: new DecisionWaiter() };
  groupDecisions(deps, { size: specs.length, lingerMs: 10_000, inFlight: 1 });
  const results = await Promise.allSettled(specs.map((s, i) => decide(deps, caller, inputOf(agentId, s), s.kind === 'swipe' ? { rail: swipeRequest(i === drop ? 1 : 1_000) } : {})));
  return { agentId, outcomes: results.map(outcomeOf), spend: await monthSpend(agentId) };
}

/** The same requests without the dropped one, each decided alone, in order. */
async function oneByOne(specs: Spec[], drop: number) {
  const agentId = await agentWithOpenApproval();
  const deps: AuthorizationDeps = { db: ctx.database.db, signer: ctx.signer, waiter: new DecisionWaiter() };
  const outcomes: string[] = [];
  for (const [i, s] of specs.entries()) {
    if (i === drop) {
      outcomes.push('dropped');
      continue;
    }
    const [r] = await Promise.allSettled([decide(deps, caller, inputOf(agentId, s), s.kind === 'swipe' ? { rail: swipeRequest(1_000) } : {})]);
    outcomes.push(outcomeOf(r!));
  }
  return { agentId, outcomes, spend: await monthSpend(agentId) };
}

describe('a member dropped at the write leaves the batch as if it had never joined', () => {
  test("the finding: a late swipe's release is not spent by the 900 after it", async () => {
    const batch = await asBatch([{ kind: 'swipe', amount: 100 }, { kind: 'authorize', amount: 900 }], 0);
    expect(batch.outcomes).toEqual(['dropped', 'denied:budget_exceeded']);
    expect(batch.spend).toBe(1_000);
    expect((await acct.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, ledger_mismatches: 0 });
  });

  const batches: Spec[][] = [
    [{ kind: 'swipe', amount: 100 }, { kind: 'authorize', amount: 900 }, { kind: 'swipe', amount: 300 }, { kind: 'authorize', amount: 200 }],
    [{ kind: 'authorize', amount: 50 }, { kind: 'swipe', amount: 400 }, { kind: 'swipe', amount: 500 }, { kind: 'authorize', amount: 600 }],
  ];
  test.each(batches.flatMap((b, n) => b.map((s, drop) => [n, drop, s.kind] as const)).filter(([n, drop]) => batches[n]![drop]!.kind === 'swipe'))(
    'batch %i with member %i (a %s) dropped decides as its other members one by one',
    async (n, drop) => {
      const specs = batches[n]!;
      const [batch, alone] = [await asBatch(specs, drop), await oneByOne(specs, drop)];
      expect(batch.outcomes).toEqual(alone.outcomes);
      expect(batch.spend).toBe(alone.spend);
    },
  );
});
