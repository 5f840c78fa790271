/**
 * x402: one signed payment per approved decision, captured before it leaves the agent's process
 * (DECISIONS §18). Against misbehaving resource servers on 127.0.0.1 (test/support/
 * x402-misbehaving-server.ts: the official `@x402/core` codecs and facilitator client) and the
 * official `@x402/fetch` + `@x402/evm` client, the tests count the signed payloads each server
 * received and could settle through the local facilitator:
 * - a server that answers the paid request with 402 again gets no second signature: 4 calls on a
 *   1-cent budget leave it one transfer, not 3;
 * - a server that answers 200 without `PAYMENT-RESPONSE` finds the decision already captured: it
 *   never expires to free its budget for another payment (4 calls on 2 cents: 2 transfers, not 4);
 * - a server asking a one-year `maxTimeoutSeconds` is refused before anything is signed;
 * - two honest purchases of one resource are two decisions, each with its own Idempotency-Key;
 * - the declared resource must be on the host requested, by default.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expireUncapturedApprovals } from '../../src/capture/capture.service.js';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { startFacilitator, type LocalFacilitator } from '../support/x402-facilitator.js';
import { startMisbehavingServer, type MisbehavingServer, type MisbehavingServerOptions } from '../support/x402-misbehaving-server.js';
import { createPayer, type Payer } from '../support/x402-payer.js';
import { TEST_NETWORK } from '../support/x402-merchant.js';

const MERCHANT = '0x1111111111111111111111111111111111111111';

let ctx: TestContext;
let acct: TestAccount;
let facilitator: LocalFacilitator;
const servers: MisbehavingServer[] = [];

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  facilitator = await startFacilitator({ networks: [TEST_NETWORK] });
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await facilitator?.close();
  await ctx?.close();
});

async function server(opts: Omit<MisbehavingServerOptions, 'facilitatorUrl' | 'payTo'>): Promise<MisbehavingServer> {
  const s = await startMisbehavingServer({ facilitatorUrl: facilitator.url, payTo: MERCHANT, ...opts });
  servers.push(s);
  return s;
}

async function agent(policy: Record<string, unknown> = {}): Promise<{ agentId: string; key: Client }> {
  const p = await acct.test.post('/v1/policies', policyBody(policy));
  expect(p.status, p.text).toBe(201);
  const agentId = (await acct.test.post('/v1/agents', { name: 'x402-buyer', policy_id: p.body.id })).body.id as string;
  const key = ctx.client((await acct.test.post('/v1/api-keys', { name: 'x402', role: 'agent', agent_id: agentId })).body.key);
  return { agentId, key };
}

const payerFor = (a: { agentId: string; key: Client }, extra: { maxValiditySeconds?: number; requireResourceOnRequestedHost?: boolean; fetch?: (r: Request) => Promise<Response> } = {}, how: { unchecked?: boolean } = {}): Payer =>
  createPayer({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: a.key.key, agentId: a.agentId, ...extra }, how);

async function decisionsOf(agentId: string) {
  const ids = ((await acct.test.get('/v1/audit-logs?limit=100')).body.data as any[]).filter((r) => r.agent_id === agentId && r.type === 'authorization.decision').map((r) => r.decision_id as string);
  return Promise.all(ids.map(async (id) => (await acct.test.get(`/v1/decisions/${id}`)).body));
}

/** What the agent's approvals count against its budget: the approved amounts not voided or expired. */
const spent = (ds: any[]) => ds.filter((d) => d.decision === 'approved' && ['uncaptured', 'captured'].includes(d.capture?.status)).reduce((n, d) => n + (d.capture.captured_amount ?? d.amount), 0);

/** Four calls of the wrapped fetch; each one's error (or status). */
async function fourCalls(payer: Payer, url: string): Promise<(Error | number)[]> {
  const out: (Error | number)[] = [];
  for (let i = 0; i < 4; i++) out.push(await payer.fetch(url).then((r) => r.status, (e: Error) => e));
  return out;
}

describe('one signature per decision', () => {
  test('a server that answers the paid request with 402 again: one signature in 4 calls on a 1-cent budget, the call fails naming the decision, the budget stays spent', async () => {
    const a = await agent({ budget_monthly: 1 });
    const s = await server({ behaviour: 'again' });
    const payer = payerFor(a);
    const results = await fourCalls(payer, `${s.url}/report`);

    expect(s.received).toHaveLength(1);
    const settled = await s.settleAll();
    expect(settled.filter((r) => r.success)).toHaveLength(1);
    const ds = await decisionsOf(a.agentId);
    const approved = ds.filter((d) => d.decision === 'approved');
    expect(approved).toHaveLength(1);
    const id = approved[0].decision_id as string;
    // The payment left under a captured decision: the nonce it signed is on the capture.
    expect(approved[0].capture).toMatchObject({ status: 'captured', captured_amount: 1, metadata: { nonce: (s.received[0]!.payload as any).authorization.nonce, pay_to: MERCHANT } });
    expect(results[0]).toBeInstanceOf(Error);
    expect((results[0] as Error).message).toMatch(new RegExp(`402 again\\. Decision ${id} stays captured`));
    for (const r of results.slice(1)) expect((r as Error).message).toMatch(/spend authorization denied \(budget_exceeded\)/);
    expect(spent(ds)).toBeLessThanOrEqual(1);
  });

  test('a server that answers 200 without PAYMENT-RESPONSE: the decision is already captured, never expires to free its budget: 4 calls on 2 cents leave 2 transfers, not 4', async () => {
    const a = await agent({ budget_monthly: 2, capture_window_seconds: 60 });
    const s = await server({ behaviour: 'silent' });
    const payer = payerFor(a);
    const first = await fourCalls(payer, `${s.url}/report`);
    // The capture windows pass; the sweep releases what was never captured.
    await expireUncapturedApprovals({ db: ctx.database.db, now: () => new Date(Date.now() + 180_000) });
    const later = await fourCalls(payer, `${s.url}/report`);

    expect(s.received).toHaveLength(2);
    expect((await s.settleAll()).filter((r) => r.success)).toHaveLength(2);
    const ds = await decisionsOf(a.agentId);
    const approved = ds.filter((d) => d.decision === 'approved');
    expect(approved.map((d) => d.capture.status)).toEqual(['captured', 'captured']);
    expect(spent(ds)).toBe(2);
    for (const [i, r] of [...first, ...later].entries()) {
      expect(r, `call ${i + 1}`).toBeInstanceOf(Error);
      if (i < 2) expect((r as Error).message).toMatch(/without a settlement \(no PAYMENT-RESPONSE\)\. Decision dec_\w+ stays captured/);
      else expect((r as Error).message).toMatch(/budget_exceeded/);
    }
  });

  test('a server asking for a one-year maxTimeoutSeconds is refused before anything is signed or decided; maxValiditySeconds sets the limit', async () => {
    const a = await agent();
    const yearLong = await server({ behaviour: 'honest', maxTimeoutSeconds: 31_536_000 });
    const payer = payerFor(a);
    await expect(payer.fetch(`${yearLong.url}/report`)).rejects.toThrow(
      /spend authorization refused: the server asks for a payment valid for 31536000 s \(maxTimeoutSeconds\), longer than the 300 s allowed \(maxValiditySeconds\)\. No payment was made\./,
    );
    expect(yearLong.received).toEqual([]);
    expect(await decisionsOf(a.agentId)).toEqual([]);

    // 300 s is within the default; 301 s is not, unless the agent allows it.
    const fiveMinutes = await server({ behaviour: 'honest', maxTimeoutSeconds: 300 });
    expect((await payer.fetch(`${fiveMinutes.url}/report`)).status).toBe(200);
    const signed = fiveMinutes.received[0]!.payload as any;
    expect(Number(signed.authorization.validBefore) - Date.now() / 1000).toBeLessThanOrEqual(300);
    const longer = await server({ behaviour: 'honest', maxTimeoutSeconds: 301 });
    await expect(payer.fetch(`${longer.url}/report`)).rejects.toThrow(/longer than the 300 s allowed/);
    expect((await payerFor(a, { maxValiditySeconds: 301 }).fetch(`${longer.url}/report`)).status).toBe(200);
    expect(longer.received).toHaveLength(1);
  });

  test('two honest purchases of one resource at one price are two decisions, each asked with its own Idempotency-Key and captured with its own nonce', async () => {
    const a = await agent();
    const s = await server({ behaviour: 'honest' });
    const keys: (string | null)[] = [];
    const recording = (req: Request) => {
      if (req.url.endsWith('/v1/authorize')) keys.push(req.headers.get('idempotency-key'));
      return fetch(req);
    };
    const payer = payerFor(a, { fetch: recording });
    for (let i = 0; i < 2; i++) expect((await payer.fetch(`${s.url}/report`)).status).toBe(200);

    expect(keys).toHaveLength(2);
    expect(new Set(keys).size).toBe(2);
    // Random, made once per request: nothing of the requirement in it.
    for (const k of keys) expect(k).toMatch(/^x402-[\w-]{24}$/);
    const ds = await decisionsOf(a.agentId);
    expect(ds).toHaveLength(2);
    const nonces = s.received.map((p) => (p.payload as any).authorization.nonce as string);
    expect(new Set(nonces).size).toBe(2);
    expect(ds.map((d) => d.capture.metadata.nonce).sort()).toEqual([...nonces].sort());
    for (const d of ds) expect(d.capture).toMatchObject({ status: 'captured', metadata: { transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) } });
    expect(payer.outcomes.map((o) => o.type)).toEqual(['approved', 'signed', 'captured', 'approved', 'signed', 'captured']);
  });

  test('the resource must be on the host requested by default: a client not told the URL requested pays nothing; turning the check off is explicit', async () => {
    const a = await agent();
    const s = await server({ behaviour: 'honest' });
    await expect(payerFor(a, {}, { unchecked: true }).fetch(`${s.url}/report`)).rejects.toThrow(/refused: the URL requested is unknown.*requireResourceOnRequestedHost/);
    expect(s.received).toEqual([]);
    expect(await decisionsOf(a.agentId)).toEqual([]);
    expect((await payerFor(a, { requireResourceOnRequestedHost: false }, { unchecked: true }).fetch(`${s.url}/report`)).status).toBe(200);
    expect(s.received).toHaveLength(1);
  });
});
