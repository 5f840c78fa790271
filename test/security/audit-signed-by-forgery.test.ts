/**
 * Attack: someone who can write to the database (but does not hold the server's audit key) changes
 * who signed a request after the fact: puts a signer on a record written unsigned (to pin an
 * agent's spending on a key), takes one away (to make a signed request look like a bearer-only
 * one), or swaps it for another key's thumbprint. `signed_by` is inside the record's MAC
 * (DECISIONS §19), so `GET /v1/audit-logs/verify` must answer invalid at that record. Records
 * written with no signer keep verifying as they did before the column existed.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { authorize } from '../../src/authorization/authorization.service.js';
import type { AuthorizationDeps } from '../../src/authorization/authorization.deps.js';
import { DecisionWaiter } from '../../src/authorization/decision-waiter.js';
import type { Caller } from '../../src/kernel/caller.js';
import { newId } from '../../src/kernel/ids.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx?.close());

const THUMBPRINT = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';
const OTHER_THUMBPRINT = 'ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI';

/**
 * An account whose chain holds, in order: its first key (1), a policy (2), an agent (3), the agent's
 * key (4), an unsigned decision (5) and a signed one (6); verified valid.
 */
async function accountWithDecisions(): Promise<{ a: TestAccount; unsigned: string; signed: string }> {
  const a = await ctx.account('growth');
  const policy = (await a.test.post('/v1/policies', policyBody())).body;
  const agent = (await a.test.post('/v1/agents', { name: 'signer', policy_id: policy.id })).body;
  const key = (await a.test.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agent.id })).body;
  const deps: AuthorizationDeps = { db: ctx.database.db, signer: ctx.signer, waiter: new DecisionWaiter() };
  const caller: Caller = { accountId: a.id, livemode: false, keyId: key.id, role: 'agent', agentId: agent.id, plan: 'growth', rateLimit: null };
  const input = { agent_id: agent.id, amount: 100, currency: 'USD', vendor: 'shop.example' };
  const unsigned = (await authorize(deps, caller, input)).decision_id;
  const signature = { agent_key_id: newId('akey'), keyid: THUMBPRINT, alg: 'ed25519' as const, signature_agent: null, created: Math.floor(Date.now() / 1000), nonce: `forgery-${newId('aud')}` };
  const signed = (await authorize(deps, { ...caller, signature }, input)).decision_id;
  const verify = await a.test.get('/v1/audit-logs/verify');
  expect(verify.body).toMatchObject({ valid: true, records: 6 });
  return { a, unsigned, signed };
}

async function recordOf(accountId: string, decisionId: string) {
  return ctx.database.db
    .selectFrom('audit_records')
    .select(['id', 'sequence', 'signed_by'])
    .where('account_id', '=', accountId)
    .where('decision_id', '=', decisionId)
    .where('type', '=', 'authorization.decision')
    .executeTakeFirstOrThrow();
}

/** Rewrites a sealed record's signed_by with the append-only guard off, in one transaction (other sessions stay guarded). */
async function rewriteSignedBy(recordId: string, signedBy: string | null) {
  await ctx.database.db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE audit_records DISABLE TRIGGER audit_records_no_update`.execute(trx);
    await sql`UPDATE audit_records SET signed_by = ${signedBy} WHERE id = ${recordId}`.execute(trx);
    await sql`ALTER TABLE audit_records ENABLE TRIGGER audit_records_no_update`.execute(trx);
  });
}

describe('signed_by changed behind the service', () => {
  test('with the guard on, the database itself refuses to change it', async () => {
    const { a, signed } = await accountWithDecisions();
    const record = await recordOf(a.id, signed);
    await expect(sql`UPDATE audit_records SET signed_by = NULL WHERE id = ${record.id}`.execute(ctx.database.db)).rejects.toThrow(/append-only/);
    expect((await a.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);
  });

  test.each([
    ['set on a record written unsigned', 'unsigned', THUMBPRINT],
    ['cleared on a record written signed', 'signed', null],
    ['changed to another key', 'signed', OTHER_THUMBPRINT],
  ] as const)('%s: verification fails at that record', async (_name, which, forged) => {
    const made = await accountWithDecisions();
    const record = await recordOf(made.a.id, made[which]);
    expect(record.signed_by).toBe(which === 'signed' ? THUMBPRINT : null);
    await rewriteSignedBy(record.id, forged);

    const res = await made.a.test.get('/v1/audit-logs/verify');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false, records: 6, first_invalid: { id: record.id, sequence: Number(record.sequence) } });
    // The API shows what is stored; the verification is what tells it is not what was written.
    const listed = (await made.a.test.get('/v1/audit-logs?limit=10')).body.data.find((r: { id: string }) => r.id === record.id);
    expect(listed.signed_by).toBe(forged);
  });

  test('written back as it was, the chain verifies again: records with no signer verify as before the column existed', async () => {
    const { a, signed, unsigned } = await accountWithDecisions();
    const record = await recordOf(a.id, signed);
    await rewriteSignedBy(record.id, null);
    expect((await a.test.get('/v1/audit-logs/verify')).body.valid).toBe(false);
    await rewriteSignedBy(record.id, THUMBPRINT);
    expect((await a.test.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true, records: 6 });
    expect((await recordOf(a.id, unsigned)).signed_by).toBeNull();
  });
});
