/**
 * `POST /v1/mandates/verify` step by step (DECISIONS §20, design §5.2): each step's refusal, made by
 * changing one thing in an otherwise good presentation, fails with its receipt error (and from step
 * 6 its reason code), and records nothing where §20 says so; replays are the first answer's bytes;
 * an approval is a `gca_` approval with the §15 lifecycle; receipts verify with the JWKS.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { compactVerify, decodeJwt as joseDecode, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeMandate, type CloseMandateOptions } from '../../src/client/mandate-close.js';
import { createTestContext, type Client, type TestAccount, type TestContext } from '../support/context.js';
import { agentApiKey, checkoutHash, DEFAULT_PAYEE, mandateFixture } from '../support/mandates.js';
import { decodeJwt, digestOf, disclosureOf, keyOfJwk, partOf, partText, reclose, reissue, splitPresentation } from '../support/mandate-forge.js';

let ctx: TestContext;
let acct: TestAccount;
let admin: Client;
/** The service's clock: the real one, or an instant the time rules' tests hold it at. */
let frozen: Date | undefined;
const clock = () => frozen ?? new Date();
/** Holds the clock at the current whole second for `work`. */
async function stopped<T>(work: (nowSeconds: number) => Promise<T>): Promise<T> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  frozen = new Date(nowSeconds * 1000);
  try {
    return await work(nowSeconds);
  } finally {
    frozen = undefined;
  }
}

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000, now: clock });
  acct = await ctx.account('growth');
  admin = acct.test;
});
afterAll(() => ctx?.close());

type Fixture = Awaited<ReturnType<typeof mandateFixture>>;
const fixture = (opts: Parameters<typeof mandateFixture>[1] = {}) => mandateFixture(admin, opts);
const txn = () => randomBytes(32).toString('base64url');

/** The fixture's mandate closed for 1,000 (USD) at the default payee, `over` over that. */
const close = (fx: Fixture, over: Partial<CloseMandateOptions> = {}, credential: string = fx.mandate.credential) =>
  closeMandate(credential, {
    agentJwk: fx.privateJwk,
    transaction_id: txn(),
    payee: DEFAULT_PAYEE,
    payment_amount: { amount: 1_000, currency: 'USD' },
    payment_instrument: { id: 'card-1', type: 'card' },
    aud: ctx.signer.issuer,
    nonce: randomBytes(12).toString('base64url'),
    now: clock,
    ...over,
  });

const verify = (fx: Fixture, presentation: string, body: Record<string, unknown> = {}, client: Client = admin) =>
  client.post('/v1/mandates/verify', { presentation, open_checkout_hash: fx.openCheckoutHash, ...body });

const mandateKey = () => ctx.mandateKeys.current.privateKey;
const otherP256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

async function countRows(table: 'decisions' | 'mandate_presentations', column: 'agent_id' | 'mandate_id', value: string): Promise<number> {
  const row = await ctx.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where(column, '=', value).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** An Error answer that recorded nothing: no decision, no presentation, the receipt's payment_id the request's id. */
async function expectUnrecorded(fx: Fixture, res: Awaited<ReturnType<typeof verify>>, error: string, mandateId: string | null) {
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ object: 'mandate_verification', status: 'Error', error, mandate_id: mandateId, decision_id: null });
  expect(res.body.authorization_token).toBeUndefined();
  expect(joseDecode(res.body.receipt)).toMatchObject({ status: 'Error', error, payment_id: res.headers.get('x-request-id') });
  expect(await countRows('decisions', 'agent_id', fx.agentId)).toBe(0);
  expect(await countRows('mandate_presentations', 'mandate_id', fx.mandate.id)).toBe(0);
}

async function expectDenied(res: Awaited<ReturnType<typeof verify>>, error: string, reasonCode: string) {
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ status: 'Error', error });
  expect(res.body.decision_id).toMatch(/^dec_/);
  const decision = await admin.get(`/v1/decisions/${res.body.decision_id}`);
  expect(decision.body).toMatchObject({ decision: 'denied', reason_code: reasonCode });
  expect(res.body.error_description).toBe(decision.body.reason);
  return decision.body;
}

const expectSuccess = (res: Awaited<ReturnType<typeof verify>>) => {
  expect(res.status, res.text).toBe(200);
  expect(res.body, res.text).toMatchObject({ status: 'Success', error: null, error_description: null });
  expect(res.body.authorization_token).toMatch(/^gca_/);
};

describe('step 1: mandates_not_supported, nothing recorded', () => {
  test('three ~~ parts', async () => {
    const fx = await fixture();
    const p = await close(fx);
    await expectUnrecorded(fx, await verify(fx, `${p}~${partText(splitPresentation(p).closed)}`), 'mandates_not_supported', null);
  });
  test('open vct mandate.payment.open.2 (re-signed with our key)', async () => {
    const fx = await fixture();
    const credential = reissue(fx.mandate.credential, mandateKey(), { delegate: (d) => ({ ...d, vct: 'mandate.payment.open.2' }) });
    await expectUnrecorded(fx, await verify(fx, await close(fx, {}, credential)), 'mandates_not_supported', null);
  });
  test('closed vct mandate.checkout.1', async () => {
    const fx = await fixture();
    const p = reclose(await close(fx), keyOfJwk(fx.privateJwk), { delegate: (d) => ({ ...d, vct: 'mandate.checkout.1' }) });
    await expectUnrecorded(fx, await verify(fx, p), 'mandates_not_supported', null);
  });
});

describe('step 2: invalid_credential, nothing recorded', () => {
  const openCases: [string, (fx: Fixture) => string][] = [
    ['root typ example+sd-jwt', (fx) => reissue(fx.mandate.credential, mandateKey(), { header: (h) => ({ ...h, typ: 'example+sd-jwt' }) })],
    ['root alg ES384', (fx) => reissue(fx.mandate.credential, mandateKey(), { header: (h) => ({ ...h, alg: 'ES384' }) })],
    ['an unknown kid', (fx) => reissue(fx.mandate.credential, mandateKey(), { header: (h) => ({ ...h, kid: 'not-our-kid' }) })],
    ['a bad signature (another P-256 key)', (fx) => reissue(fx.mandate.credential, otherP256(), {})],
    ['iss changed (re-signed with our key)', (fx) => reissue(fx.mandate.credential, mandateKey(), { payload: (p) => ({ ...p, iss: 'https://issuer.example' }) })],
    ['a disclosure removed (a digest without disclosure)', (fx) => {
      const part = partOf(fx.mandate.credential);
      return partText({ ...part, disclosures: part.disclosures.slice(1) });
    }],
    ['an extra disclosure', (fx) => {
      const part = partOf(fx.mandate.credential);
      return partText({ ...part, disclosures: [...part.disclosures, disclosureOf({ id: 'extra', name: 'Extra' })] });
    }],
  ];
  test.each(openCases)('open part: %s', async (_name, forge) => {
    const fx = await fixture();
    await expectUnrecorded(fx, await verify(fx, await close(fx, {}, forge(fx))), 'invalid_credential', null);
  });

  const closedCases: [string, (fx: Fixture, p: string) => string | Promise<string>][] = [
    ['closed typ kb+sd-jwt+kb', (fx, p) => reclose(p, keyOfJwk(fx.privateJwk), { header: (h) => ({ ...h, typ: 'kb+sd-jwt+kb' }) })],
    ['closed signed by another P-256 key', (_fx, p) => reclose(p, otherP256(), {})],
    ['closed with cnf', (fx, p) => reclose(p, keyOfJwk(fx.privateJwk), { payload: (b) => ({ ...b, cnf: { jwk: fx.key.publicJwk } }) })],
    ['neither sd_hash nor issuer_jwt_hash', (fx, p) => reclose(p, keyOfJwk(fx.privateJwk), { payload: ({ sd_hash: _x, ...b }) => b })],
    ['both hashes', (fx, p) => reclose(p, keyOfJwk(fx.privateJwk), { payload: (b) => ({ ...b, issuer_jwt_hash: digestOf(fx.mandate.credential.split('~')[0]!) }) })],
    ['a wrong sd_hash', (fx, p) => reclose(p, keyOfJwk(fx.privateJwk), { payload: (b) => ({ ...b, sd_hash: digestOf('something else') }) })],
    ['aud ≠ iss', (fx) => close(fx, { aud: 'https://verifier.example' })],
  ];
  test.each(closedCases)('closed part: %s', async (_name, forge) => {
    const fx = await fixture();
    await expectUnrecorded(fx, await verify(fx, await forge(fx, await close(fx))), 'invalid_credential', null);
  });

  test('issuer_jwt_hash alone is a binding too', async () => {
    const fx = await fixture();
    expectSuccess(await verify(fx, await close(fx, { binding: 'issuer_jwt_hash' })));
  });

  test("jti of another account, and with an agent key, of another agent: the same text as an unknown one", async () => {
    const fx = await fixture();
    const other = await ctx.account('growth');
    const p = await close(fx);
    const foreign = await verify(fx, p, {}, other.test);
    expect(foreign.body).toMatchObject({ status: 'Error', error: 'invalid_credential', mandate_id: null });
    const otherAgent = await fixture();
    const agentKey = await agentApiKey(ctx, admin, otherAgent.agentId);
    const wrongAgent = await verify(fx, p, {}, agentKey);
    expect(wrongAgent.body).toMatchObject({ status: 'Error', error: 'invalid_credential', mandate_id: null });
    expect(wrongAgent.body.error_description).toBe(foreign.body.error_description);
    const unknown = reissue(fx.mandate.credential, mandateKey(), { payload: (b) => ({ ...b, jti: 'mdt_000000000000000000000000' }) });
    expect((await verify(fx, await close(fx, {}, unknown))).body.error_description).toBe(foreign.body.error_description);
    expect(await countRows('decisions', 'agent_id', fx.agentId)).toBe(0);
    // The agent's own key may verify.
    expectSuccess(await verify(fx, p, {}, await agentApiKey(ctx, admin, fx.agentId)));
  });
});

describe('step 3: a reference decided before gets its first answer', () => {
  test('twice: the same bytes, Idempotent-Replayed, one decision, budget and spend once', async () => {
    const fx = await fixture({ mandate: { budget: 50_000, recurrence: { frequency: 'ON_DEMAND' } } });
    const p = await close(fx);
    const first = await verify(fx, p);
    expectSuccess(first);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await verify(fx, p, {}, await agentApiKey(ctx, admin, fx.agentId));
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await countRows('decisions', 'agent_id', fx.agentId)).toBe(1);
    const m = (await admin.get(`/v1/mandates/${fx.mandate.id}`)).body;
    expect([m.uses, m.budget_used]).toEqual([1, 1_000]);
  });

  test('a denied first answer is replayed too', async () => {
    const fx = await fixture({ mandate: { amount_max: 500 } });
    const p = await close(fx);
    const first = await verify(fx, p);
    await expectDenied(first, 'invalid_mandate', 'mandate_constraint_failed');
    const again = await verify(fx, p);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await countRows('decisions', 'agent_id', fx.agentId)).toBe(1);
  });
});

describe('step 4: invalid_credential, nothing recorded', () => {
  const expCases: [string, (fx: Fixture, exp: number) => Promise<string>][] = [
    ['root exp', (fx, exp) => close(fx, {}, reissue(fx.mandate.credential, mandateKey(), { payload: (p) => ({ ...p, exp }) }))],
    ['open mandate exp', (fx, exp) => close(fx, {}, reissue(fx.mandate.credential, mandateKey(), { delegate: (d) => ({ ...d, exp }) }))],
    ['closed part exp', async (fx, exp) => reclose(await close(fx), keyOfJwk(fx.privateJwk), { payload: (p) => ({ ...p, exp }) })],
    ['closed mandate exp', (fx, exp) => close(fx, { exp })],
  ];
  test.each(expCases)('%s passed by 301 s fails; by 299 s passes', (_name, forge) =>
    stopped(async (now) => {
      const fx = await fixture();
      await expectUnrecorded(fx, await verify(fx, await forge(fx, now - 301)), 'invalid_credential', fx.mandate.id);
      expectSuccess(await verify(fx, await forge(fx, now - 299)));
    }),
  );

  test('the closed part iat 301 s ahead, or 301 s behind; 299 s either way passes', () =>
    stopped(async (now) => {
      const fx = await fixture({ mandate: { budget: 50_000, recurrence: { frequency: 'ON_DEMAND' } } });
      const at = (off: number) => () => new Date((now + off) * 1000);
      for (const off of [301, -301]) await expectUnrecorded(fx, await verify(fx, await close(fx, { now: at(off) })), 'invalid_credential', fx.mandate.id);
      for (const off of [299, -299]) expectSuccess(await verify(fx, await close(fx, { now: at(off) })));
    }),
  );

  test("nonce absent; nonce not the body's", async () => {
    const fx = await fixture();
    const absent = reclose(await close(fx), keyOfJwk(fx.privateJwk), { payload: ({ nonce: _n, ...p }) => p });
    await expectUnrecorded(fx, await verify(fx, absent), 'invalid_credential', fx.mandate.id);
    await expectUnrecorded(fx, await verify(fx, await close(fx, { nonce: 'nonce-a' }), { nonce: 'nonce-b' }), 'invalid_credential', fx.mandate.id);
    expectSuccess(await verify(fx, await close(fx, { nonce: 'nonce-a' }), { nonce: 'nonce-a' }));
  });

  test('closed mandate without payee; amount 0', async () => {
    const fx = await fixture();
    const noPayee = reclose(await close(fx), keyOfJwk(fx.privateJwk), { delegate: ({ payee: _p, ...d }) => d });
    await expectUnrecorded(fx, await verify(fx, noPayee), 'invalid_credential', fx.mandate.id);
    await expectUnrecorded(fx, await verify(fx, await close(fx, { payment_amount: { amount: 0, currency: 'USD' } })), 'invalid_credential', fx.mandate.id);
  });

  test("the mandate's agent key revoked", async () => {
    const fx = await fixture();
    const p = await close(fx);
    expect((await admin.delete(`/v1/agents/${fx.agentId}/keys/${fx.agentKeyId}`)).status).toBe(200);
    const res = await verify(fx, p);
    await expectUnrecorded(fx, res, 'invalid_credential', fx.mandate.id);
    expect(res.body.error_description).toMatch(/revoked/);
  });
});

describe('step 5: agent frozen or deactivated → invalid_mandate, no decision', () => {
  test('frozen, then unfrozen: the same presentation is decided (it was not recorded)', async () => {
    const fx = await fixture();
    const p = await close(fx);
    expect((await admin.post(`/v1/agents/${fx.agentId}/freeze`, {})).status).toBe(200);
    const frozen = await verify(fx, p);
    await expectUnrecorded(fx, frozen, 'invalid_mandate', fx.mandate.id);
    expect(frozen.body.error_description).toBe('agent_frozen');
    expect((await admin.post(`/v1/agents/${fx.agentId}/unfreeze`, {})).status).toBe(200);
    expectSuccess(await verify(fx, p));
  });
  test('deactivated', async () => {
    const fx = await fixture();
    const p = await close(fx);
    expect((await admin.delete(`/v1/agents/${fx.agentId}`)).status).toBe(200);
    const res = await verify(fx, p);
    await expectUnrecorded(fx, res, 'invalid_mandate', fx.mandate.id);
    expect(res.body.error_description).toBe('agent_deactivated');
  });
});

describe('step 6: invalid_mandate, a denied decision', () => {
  test('revoked → mandate_inactive', async () => {
    const fx = await fixture();
    expect((await admin.post(`/v1/mandates/${fx.mandate.id}/revoke`, {})).status).toBe(200);
    const decision = await expectDenied(await verify(fx, await close(fx)), 'invalid_mandate', 'mandate_inactive');
    expect(decision.mandate).toMatchObject({ id: fx.mandate.id });
  });
  test('used (single-use, a second closed mandate) → mandate_inactive', async () => {
    const fx = await fixture();
    expectSuccess(await verify(fx, await close(fx)));
    expect((await admin.get(`/v1/mandates/${fx.mandate.id}`)).body.status).toBe('used');
    await expectDenied(await verify(fx, await close(fx)), 'invalid_mandate', 'mandate_inactive');
  });
  test('an open payee preset the closed mandate changes → mandate_mismatch', async () => {
    const fx = await fixture();
    const credential = reissue(fx.mandate.credential, mandateKey(), { delegate: (d) => ({ ...d, payee: DEFAULT_PAYEE }) });
    expectSuccess(await verify(fx, await close(fx, {}, credential)));
    const fx2 = await fixture();
    const preset = reissue(fx2.mandate.credential, mandateKey(), { delegate: (d) => ({ ...d, payee: DEFAULT_PAYEE }) });
    const res = await verify(fx2, await close(fx2, { payee: { ...DEFAULT_PAYEE, name: 'Cat Store Ltd' } }, preset));
    await expectDenied(res, 'invalid_mandate', 'mandate_mismatch');
  });
  test('transaction_id ≠ checkout_jwt_hash → mandate_mismatch; equal passes', async () => {
    const fx = await fixture({ mandate: { budget: 50_000, recurrence: { frequency: 'ON_DEMAND' } } });
    await expectDenied(await verify(fx, await close(fx, { transaction_id: 'txn-a' }), { checkout_jwt_hash: 'txn-b' }), 'invalid_mandate', 'mandate_mismatch');
    expectSuccess(await verify(fx, await close(fx, { transaction_id: 'txn-c' }), { checkout_jwt_hash: 'txn-c' }));
  });
  test('the same transaction_id approved before (a new closed JWT) → mandate_mismatch', async () => {
    const fx = await fixture({ mandate: { budget: 50_000, recurrence: { frequency: 'ON_DEMAND' } } });
    expectSuccess(await verify(fx, await close(fx, { transaction_id: 'txn-same' })));
    const res = await verify(fx, await close(fx, { transaction_id: 'txn-same' }));
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    await expectDenied(res, 'invalid_mandate', 'mandate_mismatch');
  });
});

describe('step 7: the constraints', () => {
  test('an unknown constraint type → unresolved_constraint [mandate_unresolved]', async () => {
    const fx = await fixture();
    const credential = reissue(fx.mandate.credential, mandateKey(), { delegate: (d) => ({ ...d, constraints: [{ type: 'payment.loyalty_points', min: 1 }, ...d.constraints] }) });
    await expectDenied(await verify(fx, await close(fx, {}, credential)), 'unresolved_constraint', 'mandate_unresolved');
  });
  test('a malformed amount_range (no max) → unresolved_constraint', async () => {
    const fx = await fixture();
    const credential = reissue(fx.mandate.credential, mandateKey(), {
      delegate: (d) => ({ ...d, constraints: d.constraints.map((c: any) => (c.type === 'payment.amount_range' ? { type: c.type, currency: c.currency } : c)) }),
    });
    await expectDenied(await verify(fx, await close(fx, {}, credential)), 'unresolved_constraint', 'mandate_unresolved');
  });
  test('payment.reference without the body\'s open_checkout_hash → unresolved_constraint', async () => {
    const fx = await fixture();
    await expectDenied(await verify(fx, await close(fx), { open_checkout_hash: undefined }), 'unresolved_constraint', 'mandate_unresolved');
  });

  const failing: [string, Parameters<typeof mandateFixture>[1], Partial<CloseMandateOptions>, Record<string, unknown>?][] = [
    ['payment.amount_range', { mandate: { amount_max: 500 } }, {}],
    ['payment.amount_range', { mandate: { amount_min: 2_000 } }, {}],
    ['payment.allowed_payees', {}, { payee: { id: 'merchant-2', name: 'Dog Store', website: 'https://dogs.example' } }],
    ['payment.allowed_payment_instruments', { mandate: { payment_instruments: [{ id: 'card-9', type: 'card' }] } }, {}],
    ['payment.budget', { mandate: { budget: 900, recurrence: { frequency: 'ON_DEMAND' } } }, {}],
    ['payment.execution_date', { mandate: { execution_window: { not_after: '2026-01-01T00:00:00Z' } } }, {}],
    ['payment.reference', {}, {}, { open_checkout_hash: checkoutHash('another checkout') }],
  ];
  test.each(failing)('%s failing → invalid_mandate [mandate_constraint_failed], the description starts with the type', async (type, opts, over, body = {}) => {
    const fx = await fixture(opts);
    const res = await verify(fx, await close(fx, over), body);
    await expectDenied(res, 'invalid_mandate', 'mandate_constraint_failed');
    expect(res.body.error_description.startsWith(`${type}: `), res.body.error_description).toBe(true);
  });
  test('payment.allowed_pisps with no pisp in the closed mandate', async () => {
    const fx = await fixture();
    const credential = reissue(fx.mandate.credential, mandateKey(), {
      delegate: (d) => ({ ...d, constraints: [...d.constraints.slice(0, -1), { type: 'payment.allowed_pisps', allowed: [{ legal_name: 'P Ltd', brand_name: 'P', domain_name: 'p.example' }] }, d.constraints.at(-1)] }),
    });
    const res = await verify(fx, await close(fx, {}, credential));
    await expectDenied(res, 'invalid_mandate', 'mandate_constraint_failed');
    expect(res.body.error_description).toMatch(/^payment\.allowed_pisps: /);
  });
  test('payment.agent_recurrence: DAILY, a second payment the same UTC day', async () => {
    const fx = await fixture({ mandate: { budget: 50_000, recurrence: { frequency: 'DAILY' } } });
    expectSuccess(await verify(fx, await close(fx)));
    const res = await verify(fx, await close(fx));
    await expectDenied(res, 'invalid_mandate', 'mandate_constraint_failed');
    expect(res.body.error_description).toMatch(/^payment\.agent_recurrence: /);
  });
});

describe('step 8: the policy, without its hold and duplicate steps', () => {
  const denied: [string, Record<string, unknown>, string, Record<string, unknown>?][] = [
    ['the payee denylisted after issuance', { vendor_denylist: ['cats.example'] }, 'policy_denied'],
    ['the policy currency changed', { currency: 'EUR' }, 'policy_denied'],
    ['budget_single_max lowered', { budget_single_max: 999 }, 'budget_exceeded'],
    ['velocity', { velocity_limits: [{ window_seconds: 3_600, max_count: 1 }] }, 'velocity_exceeded', { authorizeFirst: true }],
    ['the monthly budget used up by authorize calls', { budget_monthly: 10_000 }, 'budget_exceeded', { authorizeFirst: true, amount: 9_500 }],
    ['the policy inactive', { active: false }, 'policy_denied'],
  ];
  test.each(denied)('%s → invalid_mandate [its reason code]', async (_name, patch, code, opts = {}) => {
    const fx = await fixture();
    if (opts.authorizeFirst) {
      const a = await admin.post('/v1/authorize', { agent_id: fx.agentId, amount: opts.amount ?? 100, currency: 'USD', vendor: 'shop.example' });
      expect(a.body.decision).toBe('approved');
    }
    expect((await admin.patch(`/v1/policies/${fx.policyId}`, patch)).status).toBe(200);
    await expectDenied(await verify(fx, await close(fx)), 'invalid_mandate', code);
  });

  test('an amount above require_approval_above, a vendor off the allowlist: approved, not held', async () => {
    const fx = await fixture({ policy: { require_approval_above: 100 } });
    expectSuccess(await verify(fx, await close(fx)));
    const listed = await fixture({ policy: { vendor_allowlist: ['cats.example'] } });
    expect((await admin.patch(`/v1/policies/${listed.policyId}`, { vendor_allowlist: ['other.example'] })).status).toBe(200);
    expectSuccess(await verify(listed, await close(listed)));
  });

  test('duplicate_window_seconds set, two identical mandate payments: both approved', async () => {
    const fx = await fixture({ policy: { duplicate_window_seconds: 3_600 }, mandate: { budget: 50_000, recurrence: { frequency: 'ON_DEMAND' } } });
    expectSuccess(await verify(fx, await close(fx)));
    expectSuccess(await verify(fx, await close(fx)));
  });
});

describe('step 9: approved', () => {
  test('a gca_ token that verifies; captured; the decision names the mandate; the mandate is used', async () => {
    const fx = await fixture({ mandate: { category: 'pets' } });
    const res = await verify(fx, await close(fx, { transaction_id: 'txn-9' }));
    expectSuccess(res);
    expect(res.body).toMatchObject({ mandate_id: fx.mandate.id });
    const token = await admin.post('/v1/authorization-tokens/verify', { token: res.body.authorization_token });
    expect(token.body).toMatchObject({ valid: true });
    const decision = (await admin.get(`/v1/decisions/${res.body.decision_id}`)).body;
    expect(decision).toMatchObject({ decision: 'approved', amount: 1_000, currency: 'USD', vendor: 'cats.example', category: 'pets', mandate: { id: fx.mandate.id, reference: res.body.reference, transaction_id: 'txn-9' } });
    expect((await admin.post(`/v1/decisions/${res.body.decision_id}/capture`, {})).status).toBe(200);
    const m = (await admin.get(`/v1/mandates/${fx.mandate.id}`)).body;
    expect(m).toMatchObject({ status: 'used', uses: 1, budget_used: 1_000 });
    expect(m.last_used_at).not.toBeNull();
  });

  test("a void gives the agent's budget back, never the mandate's", async () => {
    const fx = await fixture({ policy: { budget_monthly: 1_500 }, mandate: { budget: 50_000, recurrence: { frequency: 'ON_DEMAND' } } });
    const first = await verify(fx, await close(fx));
    expectSuccess(first);
    // 1,000 of 1,500 spent: a second 1,000 is over the agent's monthly budget.
    await expectDenied(await verify(fx, await close(fx)), 'invalid_mandate', 'budget_exceeded');
    expect((await admin.post(`/v1/decisions/${first.body.decision_id}/void`, {})).status).toBe(200);
    expectSuccess(await verify(fx, await close(fx)));
    const m = (await admin.get(`/v1/mandates/${fx.mandate.id}`)).body;
    expect([m.uses, m.budget_used]).toEqual([2, 2_000]);
    expect((await admin.get('/v1/audit-logs/verify')).body).toMatchObject({ valid: true });
  });
});

describe('billing (live mode): a decision is one check; refusals before step 6 and replays are none', () => {
  test('step 1 and step 4: nothing; approval: one; its replay: nothing; a step-6 denial: one', async () => {
    const live = acct.live!;
    const checks = async () => (await live.get('/v1/usage')).body.checks as number;
    const fx = await mandateFixture(live, { mandate: { budget: 50_000, recurrence: { frequency: 'ON_DEMAND' } } });
    const send = (presentation: string, body: Record<string, unknown> = {}) => live.post('/v1/mandates/verify', { presentation, open_checkout_hash: fx.openCheckoutHash, ...body });
    const before = await checks();
    const p = await close(fx);
    expect((await send(`${p}~${partText(splitPresentation(p).closed)}`)).body.error).toBe('mandates_not_supported');
    expect((await send(await close(fx, { nonce: 'a' }), { nonce: 'b' })).body.error).toBe('invalid_credential');
    expect(await checks()).toBe(before);
    expect((await send(p)).body.status).toBe('Success');
    expect(await checks()).toBe(before + 1);
    expect((await send(p)).headers.get('idempotent-replayed')).toBe('true');
    expect(await checks()).toBe(before + 1);
    expect((await send(await close(fx), { checkout_jwt_hash: 'another' })).body.error).toBe('invalid_mandate');
    expect(await checks()).toBe(before + 2);
  });
});

describe('receipts', () => {
  async function verifyReceipt(receipt: string) {
    const jwks = (await ctx.raw('/v1/.well-known/jwks.json')).body;
    const { kid } = JSON.parse(Buffer.from(receipt.split('.')[0]!, 'base64url').toString());
    const jwk = jwks.keys.find((k: any) => k.kid === kid);
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    const { protectedHeader, payload } = await compactVerify(receipt, await importJWK(jwk, 'ES256'), { algorithms: ['ES256'] });
    expect(protectedHeader).toEqual({ alg: 'ES256', typ: 'payment-receipt+jwt', kid });
    return JSON.parse(new TextDecoder().decode(payload));
  }

  test('Success: signed with a JWKS key; the claims of §1.4; reference = SHA-256 of the closed JWT', async () => {
    const fx = await fixture();
    const p = await close(fx);
    const res = await verify(fx, p);
    expectSuccess(res);
    const closedJwt = splitPresentation(p).closed.jwt;
    const reference = createHash('sha256').update(closedJwt, 'ascii').digest('base64url');
    expect(res.body.reference).toBe(reference);
    const claims = await verifyReceipt(res.body.receipt);
    expect(claims).toEqual({
      iss: ctx.signer.issuer,
      aud: acct.id,
      iat: expect.any(Number),
      livemode: false,
      status: 'Success',
      reference,
      payment_id: res.body.decision_id,
      psp_confirmation_id: res.body.decision_id,
      network_confirmation_id: res.body.decision_id,
    });
  });

  test('Error receipts of steps 1, 2, 4 and 5 carry the X-Request-Id as payment_id; of steps 6–8 the decision id', async () => {
    const fx = await fixture();
    const stepTwo = await verify(fx, await close(fx, { aud: 'https://verifier.example' }), {}, admin);
    const claims = await verifyReceipt(stepTwo.body.receipt);
    expect(claims).toMatchObject({ status: 'Error', error: 'invalid_credential', error_description: stepTwo.body.error_description, payment_id: stepTwo.headers.get('x-request-id') });
    const sent = await ctx.raw('/v1/mandates/verify', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.key}`, 'content-type': 'application/json', 'x-request-id': 'req-mandate-step-one' },
      body: JSON.stringify({ presentation: 'not~~a~~presentation~' }),
    });
    expect(sent.body).toMatchObject({ status: 'Error', error: 'mandates_not_supported', reference: expect.any(String) });
    expect((await verifyReceipt(sent.body.receipt)).payment_id).toBe('req-mandate-step-one');
    const denied = await verify(fx, await close(fx, { payment_amount: { amount: 20_000, currency: 'USD' } }));
    expect((await verifyReceipt(denied.body.receipt)).payment_id).toBe(denied.body.decision_id);
  });

  test('a body of the wrong shape is 400', async () => {
    expect((await admin.post('/v1/mandates/verify', { presentation: 'x', extra: 1 })).status).toBe(400);
    expect((await admin.post('/v1/mandates/verify', {})).status).toBe(400);
  });

  test('decodeJwt of our answer and the receipt agree on the reference', async () => {
    const fx = await fixture();
    const res = await verify(fx, await close(fx));
    expect(decodeJwt(res.body.receipt).payload.reference).toBe(res.body.reference);
  });
});
