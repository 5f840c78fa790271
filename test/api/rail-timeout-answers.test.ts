/**
 * Timeout answers are written to the books together and retried until written
 * (src/rail-connections/timeout-answers.ts): many at once in one statement, each first request of
 * an authorization recorded as its first and later ones as increases, a decision recorded first
 * kept, and a database that fails for a while loses none of them.
 *
 * The failing database is the real one behind a wrapper (a fake failure, named as such) that
 * refuses every query, before it reaches the database, while `failing` is set.
 */
import type { DbOrTrx } from '../../src/db/database.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { recordTimeoutAnswer, type RailAuthorizationRequest } from '../../src/rail-connections/rail-answers.service.js';
import type { EndpointConnection } from '../../src/rail-connections/rail-connections.service.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { connectStripeIssuing } from '../support/stripe-issuing.js';

let ctx: TestContext;
let acct: TestAccount;
let connection: EndpointConnection;
let agentId: string;
const outage = { failing: false, failed: 0 };

/** The real database, refusing every query while `outage.failing` (as a pool that cannot give a connection does). */
const failingDb = (db: DbOrTrx) =>
  ({
    executeQuery: (query: Parameters<DbOrTrx['executeQuery']>[0]) => {
      if (!outage.failing) return db.executeQuery(query);
      outage.failed += 1;
      return Promise.reject(new Error('timeout exceeded when trying to connect'));
    },
  }) as unknown as DbOrTrx;

beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account('growth');
  const rail = await connectStripeIssuing(acct.test, { on_timeout: 'decline' });
  const p = await acct.test.post('/v1/policies', policyBody({}));
  agentId = (await acct.test.post('/v1/agents', { name: 'card', policy_id: p.body.id })).body.id;
  connection = { id: rail.id, accountId: acct.id, livemode: false, signingSecret: rail.secret, stripeVersion: '2026-10-28.endive', onTimeout: 'decline', plan: 'growth', rateLimit: null };
});
afterAll(() => ctx?.close());

const request = (authorizationId: string, eventId: string): RailAuthorizationRequest => ({ eventId, authorizationId, agentId, amount: 500, currency: 'USD', vendor: 'shop.example', category: null, metadata: {} });

async function answersOf(authorizationId: string) {
  return ctx.database.db.selectFrom('rail_authorizations').select(['request_event_id', 'outcome', 'increment', 'approved', 'reason_code']).where('connection_id', '=', connection.id).where('authorization_id', '=', authorizationId).orderBy('request_event_id').execute();
}

test('300 timeout answers at once: all recorded, each authorization’s first as its first, a second event of one as its increase', async () => {
  const deps = { db: ctx.database.db };
  const firsts = Array.from({ length: 150 }, (_, i) => recordTimeoutAnswer(deps, connection, request(`iauth_many_${i}`, `evt_many_${i}_a`)));
  const seconds = Array.from({ length: 150 }, (_, i) => recordTimeoutAnswer(deps, connection, request(`iauth_many_${i}`, `evt_many_${i}_b`)));
  expect(await Promise.all([...firsts, ...seconds])).toEqual(Array.from({ length: 300 }, () => true));
  for (const i of [0, 77, 149]) {
    expect(await answersOf(`iauth_many_${i}`)).toEqual([
      { request_event_id: `evt_many_${i}_a`, outcome: 'timeout', increment: false, approved: false, reason_code: 'timeout' },
      { request_event_id: `evt_many_${i}_b`, outcome: 'timeout', increment: true, approved: false, reason_code: 'timeout' },
    ]);
  }
});

test('a decision recorded for the event first stays on record: the timeout answer is told it is not the one', async () => {
  const deps = { db: ctx.database.db };
  expect(await recordTimeoutAnswer(deps, connection, request('iauth_decided', 'evt_decided'))).toBe(true);
  // The same event again (its decision, or another timeout answer, got there first).
  expect(await recordTimeoutAnswer(deps, connection, request('iauth_decided', 'evt_decided'))).toBe(false);
  expect(await answersOf('iauth_decided')).toHaveLength(1);
});

test('a database that fails for a while: every timeout answer given meanwhile is recorded once it answers again', async () => {
  const deps = { db: failingDb(ctx.database.db) };
  outage.failing = true;
  const recorded = Array.from({ length: 20 }, (_, i) => recordTimeoutAnswer(deps, connection, request(`iauth_outage_${i}`, `evt_outage_${i}`)));
  // Retried while it fails (nothing settles), then written.
  while (outage.failed < 3) await new Promise((r) => setTimeout(r, 20));
  outage.failing = false;
  expect(await Promise.all(recorded)).toEqual(Array.from({ length: 20 }, () => true));
  for (const i of [0, 19]) expect(await answersOf(`iauth_outage_${i}`)).toMatchObject([{ outcome: 'timeout', increment: false }]);
});
