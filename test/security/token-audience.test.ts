import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveHeldDecision } from '../../src/approvals/resolution.service.js';
import { agentWithPolicy, createTestContext, type Client, type TestAccount, type TestContext } from '../support/context.js';

// Attack: a rail serving one account is handed a genuine `gca_` token of another account, or of
// the other mode, or of an agent that has since been frozen; it must not be honoured.

const run = promisify(execFile);

let ctx: TestContext;
let a: TestAccount;
let b: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext();
  a = await ctx.account('growth');
  b = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const agentOf = async (client: Client, policy: Record<string, unknown> = {}) => (await agentWithPolicy(client, policy)).agentId;

async function approvedToken(client: Client, agentId?: string): Promise<string> {
  const res = await client.post('/v1/authorize', { agent_id: agentId ?? (await agentOf(client)), amount: 500, currency: 'USD', vendor: 'shop.example' });
  expect(res.body.decision).toBe('approved');
  return res.body.authorization_token;
}

/** The documented example, run as a rail would run it. */
async function offline(token: string, account: string, livemode: boolean): Promise<{ ok: boolean; out: string }> {
  const env = { ...process.env, SPEND_AUTH_BASE_URL: `${ctx.baseUrl}/v1`, SPEND_AUTH_ISSUER: ctx.signer.issuer, SPEND_AUTH_ACCOUNT: account, SPEND_AUTH_LIVEMODE: String(livemode) };
  try {
    const { stdout } = await run(process.execPath, ['docs/examples/verify-offline.mjs', token], { env });
    return { ok: true, out: stdout };
  } catch (err) {
    return { ok: false, out: (err as { stderr: string }).stderr };
  }
}

describe('a token names its account as audience', () => {
  test('aud is the account id, on an approval at once and on a hold approved later', async () => {
    const token = await approvedToken(a.test);
    expect(decodeJwt(token.slice(4))).toMatchObject({ aud: a.id, livemode: false });

    const agentId = await agentOf(a.live!, { require_approval_above: 100 });
    const held = await a.live!.post('/v1/authorize', { agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
    expect(held.body.decision).toBe('held');
    await resolveHeldDecision({ db: ctx.database.db, signer: ctx.signer }, { decisionId: held.body.decision_id, outcome: 'approved', resolvedBy: 'key_x', actor: { type: 'reviewer', id: 'key_x' } });
    const later = (await a.live!.get(`/v1/decisions/${held.body.decision_id}`)).body;
    expect(decodeJwt(later.authorization_token.slice(4))).toMatchObject({ aud: a.id, livemode: true });
  });
});

describe('the documented offline check (docs/examples/verify-offline.mjs)', () => {
  test("accepts the rail's own account and mode, rejects another account's token and the other mode", async () => {
    const testToken = await approvedToken(a.test);
    const liveToken = await approvedToken(a.live!);
    const foreign = await approvedToken(b.test);

    const own = await offline(testToken, a.id, false);
    expect(own.ok, own.out).toBe(true);
    expect(JSON.parse(own.out)).toMatchObject({ aud: a.id, livemode: false });
    expect((await offline(liveToken, a.id, true)).ok).toBe(true);

    const otherAccount = await offline(foreign, a.id, false);
    expect(otherAccount).toMatchObject({ ok: false, out: expect.stringMatching(/aud/) });
    const testInLiveRail = await offline(testToken, a.id, true);
    expect(testInLiveRail).toMatchObject({ ok: false, out: expect.stringMatching(/test mode/) });
    const liveInTestRail = await offline(liveToken, a.id, false);
    expect(liveInTestRail).toMatchObject({ ok: false, out: expect.stringMatching(/live mode/) });
  });
});

describe('POST /v1/authorization-tokens/verify', () => {
  const verify = (client: Client, token: string) => client.post('/v1/authorization-tokens/verify', { token });

  test("another account's or mode's genuine token is not valid for the caller", async () => {
    const token = await approvedToken(a.test);
    expect((await verify(a.test, token)).body).toMatchObject({ valid: true, error: null });
    expect((await verify(b.test, token)).body).toEqual({ valid: false, claims: null, error: 'wrong_audience' });
    expect((await verify(a.live!, token)).body).toEqual({ valid: false, claims: null, error: 'wrong_audience' });
  });

  test('a frozen or deactivated agent’s token answers agent_inactive; unfreezing restores it', async () => {
    const agentId = await agentOf(a.test);
    const token = await approvedToken(a.test, agentId);
    expect((await verify(a.test, token)).body.valid).toBe(true);

    expect((await a.test.post(`/v1/agents/${agentId}/freeze`)).status).toBe(200);
    expect((await verify(a.test, token)).body).toEqual({ valid: false, claims: null, error: 'agent_inactive' });
    expect((await a.test.post(`/v1/agents/${agentId}/unfreeze`)).status).toBe(200);
    expect((await verify(a.test, token)).body).toMatchObject({ valid: true, error: null });

    expect((await a.test.delete(`/v1/agents/${agentId}`)).status).toBe(200);
    expect((await verify(a.test, token)).body).toEqual({ valid: false, claims: null, error: 'agent_inactive' });
  });
});
