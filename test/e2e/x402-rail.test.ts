/**
 * The x402 rail end to end, with the official packages and no network: paywalled endpoints served
 * by `@x402/express` on 127.0.0.1, a local v2 facilitator (test/support/x402-facilitator.ts), and
 * the official `@x402/fetch` + `@x402/evm` client signing with a local test account, its payments
 * authorized by this service (the real app and database) through `withSpendAuthorization`.
 * Each case prints one log line of its outcome and of what the facilitator received.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { findDecisionById } from '../../src/decisions/decisions.repository.js';
import { markOutboxDone } from '../../src/outbox/outbox.repository.js';
import { createTestContext, policyBody, UNREACHABLE_ENGINE_PORT, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { FakeInlineGateway } from '../support/fake-gateway.js';
import { startFacilitator, type LocalFacilitator } from '../support/x402-facilitator.js';
import { startMerchant, TEST_NETWORK, type Merchant, type MerchantOptions } from '../support/x402-merchant.js';
import { createPayer, describeFacilitatorCalls, type Payer } from '../support/x402-payer.js';

const MERCHANT_A = '0x1111111111111111111111111111111111111111';
const MERCHANT_B = '0x2222222222222222222222222222222222222222';
const ATTACKER = '0x6666666666666666666666666666666666666666';

let clock: Date | undefined;
let ctx: TestContext;
let acct: TestAccount;
let facilitator: LocalFacilitator;
const merchants: Merchant[] = [];

beforeAll(async () => {
  ctx = await createTestContext({ gateway: (deps) => new FakeInlineGateway(deps), testModeRateLimit: 100_000, now: () => clock ?? new Date() });
  acct = await ctx.account('growth');
  facilitator = await startFacilitator({ networks: [TEST_NETWORK], failSettlement: () => failNextSettlement });
});
afterEach(() => {
  clock = undefined;
  failNextSettlement = undefined;
});
afterAll(async () => {
  for (const m of merchants) await m.close();
  await facilitator?.close();
  await ctx?.close();
});

let failNextSettlement: string | undefined;

async function merchant(opts: Partial<MerchantOptions> = {}): Promise<Merchant> {
  const m = await startMerchant({ facilitatorUrl: facilitator.url, price: () => '$0.01', payTo: () => MERCHANT_A, ...opts });
  merchants.push(m);
  return m;
}

/** A new agent under `policy`, with its own agent key. */
async function agent(policy: Record<string, unknown> = {}): Promise<{ agentId: string; key: Client }> {
  const p = await acct.test.post('/v1/policies', policyBody(policy));
  expect(p.status, p.text).toBe(201);
  const agentId = (await acct.test.post('/v1/agents', { name: 'x402-buyer', policy_id: p.body.id })).body.id as string;
  const key = ctx.client((await acct.test.post('/v1/api-keys', { name: 'x402', role: 'agent', agent_id: agentId })).body.key);
  return { agentId, key };
}

function payerFor(a: { agentId: string; key: Client }, extra: { maxWaitSeconds?: number; baseUrl?: string; apiKey?: string } = {}): Payer {
  return createPayer({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: a.key.key, agentId: a.agentId, ...extra });
}

/** The facilitator's calls from now on. */
function facilitatorFrom() {
  const start = facilitator.calls.length;
  return () => facilitator.calls.slice(start).filter((c) => c.path !== '/supported');
}

function log(name: string, payer: Payer, calls: ReturnType<ReturnType<typeof facilitatorFrom>>) {
  const lines = [
    `[x402 ${name}]`,
    ...payer.outcomes.map((o) => `  rail: ${JSON.stringify(o)}`),
    ...(calls.length ? describeFacilitatorCalls(calls).map((l) => `  facilitator: ${l}`) : ['  facilitator: (no /verify or /settle call)']),
  ];
  console.log(lines.join('\n'));
}

const decisionsOf = async (agentId: string) =>
  ((await acct.test.get(`/v1/audit-logs?limit=100`)).body.data as any[]).filter((r) => r.agent_id === agentId && r.type === 'authorization.decision').map((r) => r.decision_id as string);

async function decision(id: string) {
  const res = await acct.test.get(`/v1/decisions/${id}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** What a worker and a reviewer do for a hold: start its workflow (the fake inline engine), then approve it. */
async function approveHold(id: string) {
  const row = await ctx.database.db.selectFrom('outbox').select('id').where('topic', '=', 'held_decision').where('ref_id', '=', id).executeTakeFirstOrThrow();
  await ctx.gateway.startHeld((await findDecisionById(ctx.database.db, id))!);
  await markOutboxDone(ctx.database.db, Number(row.id), new Date());
  const res = await acct.test.post(`/v1/approvals/${id}/approve`, { note: 'x402 purchase ok' });
  expect(res.status, res.text).toBe(200);
}

const noPaymentSeen = (m: Merchant) => {
  expect(m.requests.length).toBeGreaterThan(0);
  expect(m.requests.every((r) => r.paymentSignature === undefined)).toBe(true);
  expect(m.served).toEqual([]);
};

describe('withSpendAuthorization on the official x402 client', () => {
  test('approved: exactly one payment reaches the facilitator, the resource is returned, the decision is captured with the transaction', async () => {
    const a = await agent();
    const m = await merchant();
    const payer = payerFor(a);
    const calls = facilitatorFrom();
    const res = await payer.fetch(`${m.url}/report?q=weather`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ report: 'the paid content' });
    const paid = calls();
    log('approved', payer, paid);

    expect(paid.map((c) => c.path)).toEqual(['/verify', '/settle']);
    expect(paid[0]!.body!.paymentPayload.payload.signature).toBe(paid[1]!.body!.paymentPayload.payload.signature);
    expect(m.served).toHaveLength(1);
    const settled = payer.outcomes.find((o) => o.type === 'captured');
    expect(settled).toMatchObject({ type: 'captured', amount: 1, network: TEST_NETWORK, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

    const [id] = await decisionsOf(a.agentId);
    const d = await decision(id!);
    expect(d).toMatchObject({
      decision: 'approved',
      amount: 1,
      currency: 'USD',
      vendor: new URL(m.url).host,
      category: 'x402',
      metadata: { network: TEST_NETWORK, asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', pay_to: MERCHANT_A, resource: `${m.url}/report?q=weather`, amount_atomic: '10000' },
    });
    // Captured in full before the payment was sent (what it signed), the settlement added after.
    const signed = paid[0]!.body!.paymentPayload.payload.authorization;
    expect(d.capture).toMatchObject({
      status: 'captured',
      captured_amount: 1,
      metadata: { nonce: signed.nonce, valid_before: signed.validBefore, pay_to: MERCHANT_A, transaction: (settled as { transaction: string }).transaction, network: TEST_NETWORK },
    });
    expect(d.capture.metadata.payer).toMatch(/^0x/);
    expect(payer.outcomes.map((o) => o.type)).toEqual(['approved', 'signed', 'captured']);
  });

  test('denied: the call fails with the decision reason; the facilitator and the paywalled handler see no payment header at all', async () => {
    const a = await agent({ categories_allowed: ['saas'] });
    const m = await merchant();
    const payer = payerFor(a);
    const calls = facilitatorFrom();
    await expect(payer.fetch(`${m.url}/report`)).rejects.toThrow(/Payment creation aborted: spend authorization denied \(policy_denied\): .*\(decision dec_\w+\)\. No payment was made\./);
    log('denied', payer, calls());
    expect(calls()).toEqual([]);
    noPaymentSeen(m);
    expect(payer.outcomes).toEqual([expect.objectContaining({ type: 'refused', decisionId: expect.stringMatching(/^dec_/) })]);
  });

  test('held, then approved within maxWaitSeconds: paid once, under the held decision', async () => {
    const a = await agent({ require_approval_above: 0 });
    const m = await merchant();
    const payer = payerFor(a, { maxWaitSeconds: 20 });
    const calls = facilitatorFrom();
    const paying = payer.fetch(`${m.url}/report`);
    let heldId: string | undefined;
    while (!heldId) {
      await new Promise((r) => setTimeout(r, 100));
      heldId = (await decisionsOf(a.agentId))[0];
    }
    expect((await decision(heldId)).status).toBe('pending');
    await approveHold(heldId);
    const res = await paying;
    expect(res.status).toBe(200);
    log('held→approved', payer, calls());
    expect(calls().map((c) => c.path)).toEqual(['/verify', '/settle']);
    expect(await decisionsOf(a.agentId)).toEqual([heldId]);
    expect((await decision(heldId)).capture).toMatchObject({ status: 'captured', captured_amount: 1 });
  });

  test('held with no wait: fails at once naming the decision; once approved, a retry pays under that same decision (no second hold)', async () => {
    const a = await agent({ require_approval_above: 0 });
    const m = await merchant();
    const payer = payerFor(a);
    const calls = facilitatorFrom();
    const first = await payer.fetch(`${m.url}/report`).catch((e: Error) => e);
    expect(first).toBeInstanceOf(Error);
    const id = /decision (dec_\w+) awaits a reviewer/.exec((first as Error).message)?.[1];
    expect(id, (first as Error).message).toBeDefined();
    noPaymentSeen(m);
    await approveHold(id!);
    const res = await payer.fetch(`${m.url}/report`);
    expect(res.status).toBe(200);
    log('held (no wait), approved, retried', payer, calls());
    expect(await decisionsOf(a.agentId)).toEqual([id]);
    expect(calls().map((c) => c.path)).toEqual(['/verify', '/settle']);
    expect((await decision(id!)).capture.status).toBe('captured');
  });

  test('over budget across two different x402 merchants: the second is refused and never sees a payment', async () => {
    const a = await agent({ budget_monthly: 3 });
    const first = await merchant({ price: () => '$0.02', payTo: () => MERCHANT_A });
    const second = await merchant({ price: () => '$0.02', payTo: () => MERCHANT_B });
    const payer = payerFor(a);
    const calls = facilitatorFrom();
    expect((await payer.fetch(`${first.url}/report`)).status).toBe(200);
    await expect(payer.fetch(`${second.url}/report`)).rejects.toThrow(/spend authorization denied \(budget_exceeded\)/);
    log('over budget across two merchants', payer, calls());
    expect(calls().map((c) => `${c.path} ${c.body!.paymentRequirements.payTo}`)).toEqual([`/verify ${MERCHANT_A}`, `/settle ${MERCHANT_A}`]);
    noPaymentSeen(second);
    const ids = await decisionsOf(a.agentId);
    expect(await Promise.all(ids.map(async (id) => (await decision(id)).vendor))).toEqual(expect.arrayContaining([new URL(first.url).host, new URL(second.url).host]));
  });

  test('a server that raises its price on the paid request: the call fails naming the decision, which stays captured (its payment was sent); nothing is signed twice', async () => {
    const a = await agent();
    // 1st request (unpaid) quotes $0.01; from the paid request on it asks $0.05, so it answers 402 again.
    const m = await merchant({ price: (n) => (n <= 1 ? '$0.01' : '$0.05') });
    const payer = payerFor(a);
    const calls = facilitatorFrom();
    const failed = await payer.fetch(`${m.url}/report`).catch((e: Error) => e);
    log('price raised on the paid request', payer, calls());
    expect(failed).toBeInstanceOf(Error);
    const ids = await decisionsOf(a.agentId);
    expect(ids).toHaveLength(1);
    expect((failed as Error).message).toContain(`the server answered the paid request with 402 again. Decision ${ids[0]} stays captured`);
    expect(m.requests.filter((r) => r.paymentSignature !== undefined)).toHaveLength(1);
    expect(calls().filter((c) => c.path === '/settle')).toEqual([]);
    expect((await decision(ids[0]!)).capture).toMatchObject({ status: 'captured', captured_amount: 1 });
    expect(payer.outcomes.map((o) => o.type)).toEqual(['approved', 'signed', 'payment_not_accepted']);
  });

  test('a held decision taken up after its approval, when the server now asks more or another payTo: refused, nothing signed', async () => {
    for (const [what, opts, message] of [
      ['price', { price: (n: number) => (n <= 1 ? '$0.01' : '$0.05') }, /refused: the server now asks 0\.05 USD, more than the 0\.01 USD of decision dec_\w+/],
      ['payTo', { payTo: (n: number) => (n <= 1 ? MERCHANT_A : ATTACKER) }, new RegExp(`refused: the server now asks to be paid to ${ATTACKER}, not to ${MERCHANT_A}`)],
    ] as const) {
      const a = await agent({ require_approval_above: 0 });
      const m = await merchant(opts);
      const payer = payerFor(a);
      const calls = facilitatorFrom();
      const held = await payer.fetch(`${m.url}/report`).catch((e: Error) => e);
      const id = /decision (dec_\w+) awaits a reviewer/.exec((held as Error).message)?.[1];
      expect(id, what).toBeDefined();
      await approveHold(id!);
      await expect(payer.fetch(`${m.url}/report`), what).rejects.toThrow(message);
      log(`${what} changed after the hold`, payer, calls());
      expect(calls()).toEqual([]);
      noPaymentSeen(m);
      expect((await decision(id!)).capture.status).toBe('uncaptured');
    }
  });

  test('the service unreachable: no payment (fail closed)', async () => {
    const a = await agent();
    const m = await merchant();
    const payer = payerFor(a, { baseUrl: `http://127.0.0.1:${UNREACHABLE_ENGINE_PORT}/v1` });
    const calls = facilitatorFrom();
    await expect(payer.fetch(`${m.url}/report`)).rejects.toThrow(/spend authorization could not be decided \(network_error: Could not reach the spend authorization service/);
    log('service unreachable', payer, calls());
    expect(calls()).toEqual([]);
    noPaymentSeen(m);
  });
});

describe('more outcomes', () => {
  test('an asset outside the table is refused without asking the service', async () => {
    const a = await agent();
    const m = await merchant({ asset: { address: '0x9999999999999999999999999999999999999999', decimals: 6, name: 'Fake USD', version: '1' } });
    const payer = payerFor(a);
    // The client's own controls would refuse it first; let it through to the rail.
    payer.client.setSpendControls({ allowedAssets: true });
    const calls = facilitatorFrom();
    await expect(payer.fetch(`${m.url}/report`)).rejects.toThrow(/refused: unknown asset 0x9999999999999999999999999999999999999999 on eip155:84532/);
    expect(calls()).toEqual([]);
    expect(await decisionsOf(a.agentId)).toEqual([]);
  });

  test('the answer to authorize lost on the way: the call retries with its own Idempotency-Key and pays under the one decision', async () => {
    const a = await agent();
    const m = await merchant();
    const sent: Request[] = [];
    let dropped = false;
    // The service decides, then the connection drops before its answer arrives.
    const lossy = async (req: Request) => {
      sent.push(req.clone());
      const res = await fetch(req);
      if (!dropped && req.url.endsWith('/v1/authorize')) {
        dropped = true;
        throw new TypeError('fetch failed');
      }
      return res;
    };
    const payer = createPayer({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: a.key.key, agentId: a.agentId, fetch: lossy });
    const calls = facilitatorFrom();
    expect((await payer.fetch(`${m.url}/report`)).status).toBe(200);
    const keys = sent.filter((r) => r.url.endsWith('/v1/authorize')).map((r) => r.headers.get('idempotency-key'));
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^x402-[\w-]{24}$/);
    expect(keys[1]).toBe(keys[0]);
    const ids = await decisionsOf(a.agentId);
    expect(ids).toHaveLength(1);
    expect((await decision(ids[0]!)).capture.status).toBe('captured');
    expect(calls().map((c) => c.path)).toEqual(['/verify', '/settle']);
  });

  test('two purchases of the same resource are two decisions, two payments, both captured', async () => {
    const a = await agent();
    const m = await merchant();
    const payer = payerFor(a);
    const calls = facilitatorFrom();
    for (let i = 0; i < 2; i++) expect((await payer.fetch(`${m.url}/report`)).status).toBe(200);
    const ids = await decisionsOf(a.agentId);
    expect(new Set(ids).size).toBe(2);
    expect(calls().map((c) => c.path)).toEqual(['/verify', '/settle', '/verify', '/settle']);
    for (const id of ids) expect((await decision(id)).capture.status).toBe('captured');
  });

  test('an approval past its capture window is refused before anything is signed', async () => {
    const a = await agent({ capture_window_seconds: 60 });
    const m = await merchant();
    const payer = payerFor(a);
    // The service's clock 50 s behind: its approval's capture_before is 10 s ahead of now.
    clock = new Date(Date.now() - 50_000);
    const calls = facilitatorFrom();
    await expect(payer.fetch(`${m.url}/report`)).rejects.toThrow(/refused: the approval of decision dec_\w+ is past its capture window/);
    expect(calls()).toEqual([]);
    noPaymentSeen(m);
  });

  test('a failed settlement: the call fails naming the decision, which stays captured (the signed payment can still be settled) with the reason added to its capture', async () => {
    const a = await agent();
    const m = await merchant();
    const payer = payerFor(a);
    failNextSettlement = 'insufficient_funds';
    const failed = await payer.fetch(`${m.url}/report`).catch((e: Error) => e);
    expect(failed).toBeInstanceOf(Error);
    const outcome = payer.outcomes.find((o) => o.type === 'settlement_failed');
    expect(outcome).toMatchObject({ reason: 'insufficient_funds' });
    const id = (outcome as { decisionId: string }).decisionId;
    expect((failed as Error).message).toMatch(new RegExp(`the settlement failed \\(insufficient_funds\\)\\. Decision ${id} stays captured`));
    expect((await decision(id)).capture).toMatchObject({ status: 'captured', captured_amount: 1, metadata: { settlement_error: 'insufficient_funds' } });
  });
});
