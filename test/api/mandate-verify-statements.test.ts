/**
 * What a mandate verification costs the database, in statements (the CPU budget: each
 * round trip is API CPU too): a first presentation is the unlocked read, then one transaction of
 * four (the agent's lock; the mandate's lock with its checks and the agent's spend; one write of
 * the decision and the mandate's side together; commit); a mandate read before skips the read.
 * Only the columns verify reads are read.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateFixture } from '../support/mandates.js';
import { presenting } from '../support/mandate-presenting.js';

let ctx: TestContext;
let acct: TestAccount;
let queries: string[] = [];

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000, onQuery: (q) => void queries.push(q) });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const recurring = { mandate: { budget: 1_000_000, recurrence: { frequency: 'ON_DEMAND' } } };

test('a first presentation: one read, then begin, the agent lock, the mandate lock with the spend, one write, commit; the next ones skip the read', async () => {
  const fx = await mandateFixture(acct.test, recurring);
  const { close, verify } = presenting(ctx);
  for (const expected of [6, 5, 5]) {
    const presentation = await close(fx);
    queries = [];
    const res = await verify(acct.test, fx, presentation);
    expect(res.body.status, res.text).toBe('Success');
    const seen = [...queries];
    expect(seen, seen.join('\n')).toHaveLength(expected);
    const read = expected === 6 ? seen.shift()! : undefined;
    const [begin, agentLock, mandateLock, write, commit] = seen as [string, string, string, string, string];
    if (read) expect(read).toMatch(/from "mandates" as "m" inner join "agent_keys"/);
    expect([begin, commit]).toEqual(['begin', 'commit']);
    expect(agentLock).toMatch(/from "agents" as "a".* for update of "a"$/);
    expect(mandateLock).toMatch(/from "agent_spend".* from "mandates" as "m" inner join "agent_keys" .* for update of "m"$/);
    expect(write).toMatch(/insert into "decisions"/);
    expect(write).toMatch(/update "mandates"/);
    expect(write).toMatch(/insert into "mandate_presentations"/);
    // The credential and the open mandate (kilobytes each) stay in the table.
    for (const q of [read ?? '', mandateLock]) expect(q).not.toMatch(/"m"\.\*|credential|open_mandate/);
  }
});

test('a replay is the one read', async () => {
  const fx = await mandateFixture(acct.test, recurring);
  const { close, verify } = presenting(ctx);
  const presentation = await close(fx);
  expect((await verify(acct.test, fx, presentation)).body.status).toBe('Success');
  queries = [];
  const again = await verify(acct.test, fx, presentation);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(queries, queries.join('\n')).toHaveLength(1);
});
