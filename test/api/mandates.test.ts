/**
 * The mandate resource (DECISIONS §20): `POST /v1/mandates` (issue), `GET /v1/mandates` and
 * `/v1/mandates/:id`, `POST /v1/mandates/:id/revoke`, and the verify route's roles and 400s (its
 * behaviour has its own tests), through the real app on a real database.
 */
import { compactVerify, importJWK, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { newAgentKey } from '../support/agent-signing.js';
import { createTestContext, type Client, type TestAccount, type TestContext } from '../support/context.js';
import {
  agentApiKey,
  checkoutHash,
  DEFAULT_PAYEE,
  decodeCredential,
  issueMandate,
  mandateAgent,
  mandateBody,
  registerP256Key,
  resolveCredential,
  reviewerApiKey,
  type MandateAgent,
} from '../support/mandates.js';

let ctx: TestContext;
let acct: TestAccount;
let agent: MandateAgent;
let reviewer: Client;
let ownAgentKey: Client;
/** The app's clock runs this far ahead of the real one (expiry tests move it). */
let offsetMs = 0;

const auditOf = (type: string, agentId: string) =>
  ctx.database.db.selectFrom('audit_records').selectAll().where('account_id', '=', acct.id).where('type', '=', type).where('agent_id', '=', agentId).orderBy('insert_order').execute();
const types = (m: { open_mandate: { constraints: { type: string }[] } }) => m.open_mandate.constraints.map((c) => c.type);
const constraint = (m: { open_mandate: { constraints: { type: string }[] } }, type: string) => m.open_mandate.constraints.find((c) => c.type === type) as any;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 2000, now: () => new Date(Date.now() + offsetMs) });
  acct = await ctx.account('growth');
  agent = await mandateAgent(acct.test);
  reviewer = await reviewerApiKey(ctx, acct.test);
  ownAgentKey = await agentApiKey(ctx, acct.test, agent.agentId);
});
afterAll(() => ctx?.close());

describe('POST /v1/mandates', () => {
  test('201: the mandate object, stored, with a mandate.created record', async () => {
    const hash = checkoutHash('checkout-1');
    const res = await acct.test.post('/v1/mandates', mandateBody(agent.agentId, { open_checkout_hash: hash, category: '  SaaS ', metadata: { order: 'A-1' } }));
    expect(res.status, res.text).toBe(201);
    const m = res.body;
    expect(m).toEqual({
      id: expect.stringMatching(/^mdt_[0-9A-Za-z]+$/),
      object: 'mandate',
      agent_id: agent.agentId,
      agent_key_id: agent.agentKeyId,
      status: 'active',
      credential: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+~([\w-]+~)+$/),
      open_mandate: {
        vct: 'mandate.payment.open.1',
        constraints: expect.any(Array),
        cnf: { jwk: { kty: 'EC', crv: 'P-256', x: agent.key.publicJwk.x, y: agent.key.publicJwk.y } },
        iat: expect.any(Number),
        exp: expect.any(Number),
      },
      category: 'saas',
      uses: 0,
      budget_used: 0,
      last_used_at: null,
      expires_at: expect.any(String),
      revoked_at: null,
      created_at: expect.any(String),
      livemode: false,
      metadata: { order: 'A-1' },
    });
    // expires_in defaults to an hour.
    expect(m.open_mandate.exp - m.open_mandate.iat).toBe(3_600);
    expect(Date.parse(m.expires_at)).toBe(m.open_mandate.exp * 1000);
    expect(constraint(m, 'payment.reference')).toEqual({ type: 'payment.reference', conditional_transaction_id: hash });

    const stored = await ctx.database.db.selectFrom('mandates').selectAll().where('id', '=', m.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ currency: 'USD', single_use: true, max_occurrences: null, signing_kid: ctx.mandateKeys.current.kid, credential: m.credential });
    expect(stored.open_mandate).toEqual(m.open_mandate);
    const records = await auditOf('mandate.created', agent.agentId);
    expect(records.map((r) => r.metadata)).toContainEqual({ mandate_id: m.id, agent_key_id: agent.agentKeyId });
    expect(records.find((r) => (r.metadata as any).mandate_id === m.id)!.actor_type).toBe('api_key');

    // Readable as issued.
    const got = await acct.test.get(`/v1/mandates/${m.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(m);
  });

  test('the credential: ES256 by the published mandate key, header and payload as §20 says, one disclosure per allowed entry, resolving to open_mandate', async () => {
    const payees = [DEFAULT_PAYEE, { id: 'merchant-2', name: 'Dog Store' }];
    const instruments = [{ id: 'card-1', type: 'card', description: 'Visa 4242' }, { id: 'card-2', type: 'card' }];
    const m = await issueMandate(acct.test, agent.agentId, { payees, payment_instruments: instruments });
    const { header, payload, raw } = decodeCredential(m.credential);
    expect(header).toEqual({ alg: 'ES256', typ: 'mandate+sd-jwt', kid: ctx.mandateKeys.current.kid });
    expect(Object.keys(payload).sort()).toEqual(['_sd_alg', 'delegate_payload', 'exp', 'iat', 'iss', 'jti']);
    expect(payload).toMatchObject({ iss: 'spend-auth-test', jti: m.id, iat: m.open_mandate.iat, exp: m.open_mandate.exp, _sd_alg: 'sha-256' });
    expect(payload.delegate_payload).toEqual([{ '...': expect.stringMatching(/^[\w-]{43}$/) }]);
    // The open mandate, each payee and each instrument: a disclosure each.
    expect(raw).toHaveLength(1 + payees.length + instruments.length);
    const { open, unresolved, unused } = resolveCredential(m.credential);
    expect(unresolved).toEqual([]);
    expect(unused).toEqual([]);
    expect(open).toEqual(m.open_mandate);
    expect(constraint(m, 'payment.allowed_payees').allowed).toEqual(payees);
    expect(constraint(m, 'payment.allowed_payment_instruments').allowed).toEqual(instruments);

    // Verifiable offline with the JWKS's EC key named by the kid.
    const jwks = (await ctx.raw('/v1/.well-known/jwks.json')).body.keys as JWK[];
    const key = jwks.find((k) => k.kid === header.kid);
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    const jwt = m.credential.split('~')[0];
    const verified = await compactVerify(jwt, await importJWK(key!, 'ES256'));
    expect(verified.protectedHeader.alg).toBe('ES256');
  });

  test('constraints in §20 order, each only when given; amounts in minor units, the budget in major units', async () => {
    const minimal = await issueMandate(acct.test, agent.agentId);
    expect(types(minimal)).toEqual(['payment.amount_range', 'payment.allowed_payees', 'payment.reference']);
    // No amount_max: the policy's budget_single_max; no amount_min: no `min` at all.
    expect(constraint(minimal, 'payment.amount_range')).toEqual({ type: 'payment.amount_range', currency: 'USD', max: 10_000 });

    const full = await issueMandate(acct.test, agent.agentId, {
      amount_max: 5_000,
      amount_min: 0,
      budget: 12_345,
      recurrence: { frequency: 'MONTHLY', max_occurrences: 3 },
      execution_window: { not_before: '2026-01-01T00:00:00Z', not_after: '2027-12-31T23:59:59Z' },
      payment_instruments: [{ id: 'card-1', type: 'card' }],
    });
    expect(types(full)).toEqual([
      'payment.amount_range',
      'payment.allowed_payees',
      'payment.allowed_payment_instruments',
      'payment.budget',
      'payment.agent_recurrence',
      'payment.execution_date',
      'payment.reference',
    ]);
    expect(constraint(full, 'payment.amount_range')).toEqual({ type: 'payment.amount_range', currency: 'USD', max: 5_000, min: 0 });
    expect(constraint(full, 'payment.budget')).toMatchObject({ max: 123.45, currency: 'USD' });
    expect(constraint(full, 'payment.agent_recurrence')).toMatchObject({ frequency: 'MONTHLY', max_occurrences: 3 });
    expect(constraint(full, 'payment.execution_date')).toMatchObject({ not_before: '2026-01-01T00:00:00Z', not_after: '2027-12-31T23:59:59Z' });
    const stored = await ctx.database.db.selectFrom('mandates').selectAll().where('id', '=', full.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ single_use: false, max_occurrences: 3 });
    expect(Number(stored.budget_minor)).toBe(12_345);

    const budgetOnly = await issueMandate(acct.test, agent.agentId, { budget: 500, expires_in: 60 });
    expect(types(budgetOnly)).toEqual(['payment.amount_range', 'payment.allowed_payees', 'payment.budget', 'payment.reference']);
    expect(budgetOnly.open_mandate.exp - budgetOnly.open_mandate.iat).toBe(60);
  });

  test("the currency is the policy's: a JPY budget is written in yen (no minor unit)", async () => {
    const jpy = await mandateAgent(acct.test, { currency: 'JPY' });
    const m = await issueMandate(acct.test, jpy.agentId, { budget: 5_000 });
    expect(constraint(m, 'payment.amount_range')).toMatchObject({ currency: 'JPY' });
    expect(constraint(m, 'payment.budget')).toMatchObject({ max: 5_000, currency: 'JPY' });
  });

  const offRule: [string, Record<string, unknown>, string][] = [
    ['an unknown field', { constraints: [] }, 'constraints'],
    ['agent_id missing', { agent_id: undefined }, 'agent_id'],
    ['open_checkout_hash missing', { open_checkout_hash: undefined }, 'open_checkout_hash'],
    ['open_checkout_hash of 42 characters', { open_checkout_hash: 'a'.repeat(42) }, 'open_checkout_hash'],
    ['open_checkout_hash of 44 characters', { open_checkout_hash: 'a'.repeat(44) }, 'open_checkout_hash'],
    ['open_checkout_hash not base64url', { open_checkout_hash: `${'a'.repeat(42)}+` }, 'open_checkout_hash'],
    ['no payees', { payees: [] }, 'payees'],
    ['21 payees', { payees: Array.from({ length: 21 }, (_, i) => ({ id: `p${i}`, name: `Shop ${i}` })) }, 'payees'],
    ['a payee without id', { payees: [{ name: 'Cat Store' }] }, 'payees.0.id'],
    ['a payee with an empty name', { payees: [{ id: 'x', name: '' }] }, 'payees.0.name'],
    ['a payee id of 256 characters', { payees: [{ id: 'x'.repeat(256), name: 'n' }] }, 'payees.0.id'],
    ['a payee with an unknown member', { payees: [{ id: 'x', name: 'n', mcc: '5411' }] }, 'payees.0.mcc'],
    ['a payee website with no host', { payees: [DEFAULT_PAYEE, { id: 'x', name: 'n', website: 'https://' }] }, 'payees.1.website'],
    ['a payee website that is a plain word', { payees: [{ id: 'x', name: 'n', website: 'cats' }] }, 'payees.0.website'],
    ['amount_max 0', { amount_max: 0 }, 'amount_max'],
    ['amount_max a fraction', { amount_max: 10.5 }, 'amount_max'],
    ['amount_min negative', { amount_min: -1 }, 'amount_min'],
    ['amount_min above amount_max', { amount_max: 100, amount_min: 101 }, 'amount_min'],
    ['budget 0', { budget: 0 }, 'budget'],
    ['budget not an integer', { budget: 1.5 }, 'budget'],
    ['recurrence without budget', { recurrence: { frequency: 'DAILY' } }, 'budget'],
    ['recurrence of an unknown frequency', { budget: 100, recurrence: { frequency: 'HOURLY' } }, 'recurrence.frequency'],
    ['max_occurrences 0', { budget: 100, recurrence: { frequency: 'DAILY', max_occurrences: 0 } }, 'recurrence.max_occurrences'],
    ['max_occurrences 1,001', { budget: 100, recurrence: { frequency: 'DAILY', max_occurrences: 1_001 } }, 'recurrence.max_occurrences'],
    ['an empty execution_window', { execution_window: {} }, 'execution_window'],
    ['not_before not RFC 3339', { execution_window: { not_before: '2026-12-01' } }, 'execution_window.not_before'],
    ['not_before after not_after', { execution_window: { not_before: '2027-01-02T00:00:00Z', not_after: '2027-01-01T00:00:00Z' } }, 'execution_window.not_before'],
    ['21 payment_instruments', { payment_instruments: Array.from({ length: 21 }, (_, i) => ({ id: `c${i}`, type: 'card' })) }, 'payment_instruments'],
    ['an instrument without type', { payment_instruments: [{ id: 'c1' }] }, 'payment_instruments.0.type'],
    ['an empty category', { category: '  ' }, 'category'],
    ['a category of 65 characters', { category: 'c'.repeat(65) }, 'category'],
    ['expires_in 59', { expires_in: 59 }, 'expires_in'],
    ['expires_in 31,622,401', { expires_in: 31_622_401 }, 'expires_in'],
    ['metadata with 51 keys', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    ['metadata with an object value', { metadata: { nested: { a: 1 } } }, 'metadata.nested'],
  ];
  test.each(offRule)('400 for %s, naming %s', async (_what, overrides, param) => {
    const before = await ctx.database.db.selectFrom('mandates').select(({ fn }) => fn.countAll<string>().as('n')).where('account_id', '=', acct.id).executeTakeFirstOrThrow();
    const res = await acct.test.post('/v1/mandates', mandateBody(agent.agentId, overrides));
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
    const after = await ctx.database.db.selectFrom('mandates').select(({ fn }) => fn.countAll<string>().as('n')).where('account_id', '=', acct.id).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  test('the bounds themselves are accepted: 20 payees, 20 instruments, expires_in 60 and 31,622,400, max_occurrences 1,000', async () => {
    const m = await issueMandate(acct.test, agent.agentId, {
      payees: Array.from({ length: 20 }, (_, i) => ({ id: `p${i}`, name: `Shop ${i}` })),
      payment_instruments: Array.from({ length: 20 }, (_, i) => ({ id: `c${i}`, type: 'card' })),
      expires_in: 31_622_400,
      budget: 1,
      recurrence: { frequency: 'ON_DEMAND', max_occurrences: 1_000 },
    });
    expect(m.open_mandate.exp - m.open_mandate.iat).toBe(31_622_400);
    expect(decodeCredential(m.credential).raw).toHaveLength(41);
  });

  test("amount_max above the policy's budget_single_max → 400 amount_max; equal is fine", async () => {
    const over = await acct.test.post('/v1/mandates', mandateBody(agent.agentId, { amount_max: 10_001 }));
    expect(over.status).toBe(400);
    expect(over.body.error.param).toBe('amount_max');
    // amount_min is checked against the policy's maximum when amount_max is not given.
    const min = await acct.test.post('/v1/mandates', mandateBody(agent.agentId, { amount_min: 10_001 }));
    expect(min.status).toBe(400);
    expect(min.body.error.param).toBe('amount_min');
    expect((await acct.test.post('/v1/mandates', mandateBody(agent.agentId, { amount_max: 10_000, amount_min: 10_000 }))).status).toBe(201);
  });

  test("payees on the policy's denylist, or off its non-empty allowlist → 400 naming the payee; the website's host is the vendor, else the name", async () => {
    const listed = await mandateAgent(acct.test, { vendor_denylist: ['evil.example', 'Bad Shop'], vendor_allowlist: ['cats.example', 'bad shop', 'evil.example', 'Good Shop'] });
    const post = (payees: unknown[]) => acct.test.post('/v1/mandates', mandateBody(listed.agentId, { payees }));
    const denied = await post([DEFAULT_PAYEE, { id: 'e', name: 'Cat Store', website: 'https://www.EVIL.example/path' }]);
    expect(denied.status).toBe(400);
    expect(denied.body.error).toMatchObject({ param: 'payees.1', message: expect.stringContaining('denylist') });
    const deniedName = await post([{ id: 'b', name: 'bad  SHOP' }]);
    expect(deniedName.body.error).toMatchObject({ param: 'payees.0', message: expect.stringContaining('denylist') });
    const offList = await post([DEFAULT_PAYEE, { id: 'd', name: 'Dog Store' }]);
    expect(offList.body.error).toMatchObject({ param: 'payees.1', message: expect.stringContaining('allowlist') });
    // The website decides, not the name: an allowlisted host under any name passes.
    const ok = await post([{ id: 'c', name: 'Dog Store', website: 'https://shop.cats.example' }, { id: 'g', name: 'good shop' }]);
    expect(ok.status, ok.text).toBe(201);
  });

  test('agent_key_id: an active P-256 key of this agent; omitted, the only one; else 400 agent_key_id', async () => {
    const a = await mandateAgent(acct.test);
    const other = await mandateAgent(acct.test);
    const ed = await acct.test.post(`/v1/agents/${a.agentId}/keys`, { jwk: (await newAgentKey('ed25519')).publicJwk });
    expect(ed.status).toBe(201);
    const refused = async (agent_key_id: string | undefined, agentId = a.agentId) => {
      const res = await acct.test.post('/v1/mandates', mandateBody(agentId, agent_key_id ? { agent_key_id } : {}));
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.param).toBe('agent_key_id');
    };
    await refused(ed.body.id);
    await refused(other.agentKeyId);
    await refused('akey_doesnotexist');
    // Named explicitly, the one P-256 key.
    expect((await issueMandate(acct.test, a.agentId, { agent_key_id: a.agentKeyId })).agent_key_id).toBe(a.agentKeyId);
    // A second P-256 key: omitting agent_key_id is ambiguous; naming either works.
    const second = await registerP256Key(acct.test, a.agentId);
    await refused(undefined);
    const m = await issueMandate(acct.test, a.agentId, { agent_key_id: second.agentKeyId });
    expect(m.open_mandate.cnf.jwk).toEqual({ kty: 'EC', crv: 'P-256', x: second.key.publicJwk.x, y: second.key.publicJwk.y });
    // Revoked keys do not count: with the second revoked, the first is the only one again, and the second is refused.
    expect((await acct.test.delete(`/v1/agents/${a.agentId}/keys/${second.agentKeyId}`)).status).toBe(200);
    await refused(second.agentKeyId);
    expect((await issueMandate(acct.test, a.agentId)).agent_key_id).toBe(a.agentKeyId);
    // No P-256 key at all (only an Ed25519 one).
    expect((await acct.test.delete(`/v1/agents/${a.agentId}/keys/${a.agentKeyId}`)).status).toBe(200);
    await refused(undefined);
  });

  test('404 for an unknown agent, or one of another account or mode', async () => {
    const stranger = await ctx.account('growth');
    const theirs = await mandateAgent(stranger.test);
    for (const [client, agentId] of [
      [acct.test, 'agt_doesnotexist'],
      [acct.test, theirs.agentId],
      [acct.live!, agent.agentId],
    ] as const) {
      const res = await client.post('/v1/mandates', mandateBody(agentId));
      expect(res.status, res.text).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', param: 'agent_id' });
    }
  });

  test('403 agent_frozen / agent_deactivated; 409 when the agent has no active policy', async () => {
    const frozen = await mandateAgent(acct.test);
    expect((await acct.test.post(`/v1/agents/${frozen.agentId}/freeze`)).status).toBe(200);
    const f = await acct.test.post('/v1/mandates', mandateBody(frozen.agentId));
    expect(f.status).toBe(403);
    expect(f.body.error).toMatchObject({ code: 'agent_frozen', param: 'agent_id' });
    expect((await acct.test.post(`/v1/agents/${frozen.agentId}/unfreeze`)).status).toBe(200);
    expect((await acct.test.post('/v1/mandates', mandateBody(frozen.agentId))).status).toBe(201);

    const gone = await mandateAgent(acct.test);
    expect((await acct.test.delete(`/v1/agents/${gone.agentId}`)).status).toBe(200);
    const d = await acct.test.post('/v1/mandates', mandateBody(gone.agentId));
    expect(d.status).toBe(403);
    expect(d.body.error.code).toBe('agent_deactivated');

    const inactive = await mandateAgent(acct.test);
    expect((await acct.test.patch(`/v1/policies/${inactive.policyId}`, { active: false })).status).toBe(200);
    const c = await acct.test.post('/v1/mandates', mandateBody(inactive.agentId));
    expect(c.status).toBe(409);
    expect(c.body.error.code).toBe('conflict');
  });

  test('with an Idempotency-Key: the same mandate again, issued and recorded once', async () => {
    const a = await mandateAgent(acct.test);
    const body = mandateBody(a.agentId);
    const first = await acct.test.post('/v1/mandates', body, { 'Idempotency-Key': 'issue-once' });
    const again = await acct.test.post('/v1/mandates', body, { 'Idempotency-Key': 'issue-once' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await ctx.database.db.selectFrom('mandates').select('id').where('agent_id', '=', a.agentId).execute()).toEqual([{ id: first.body.id }]);
    expect(await auditOf('mandate.created', a.agentId)).toHaveLength(1);
  });

  test('an agent key (its own agent included) and a reviewer key → 403, nothing issued', async () => {
    const before = await ctx.database.db.selectFrom('mandates').select('id').where('agent_id', '=', agent.agentId).execute();
    for (const client of [ownAgentKey, reviewer]) {
      const res = await client.post('/v1/mandates', mandateBody(agent.agentId));
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    const after = await ctx.database.db.selectFrom('mandates').select('id').where('agent_id', '=', agent.agentId).execute();
    expect(after).toHaveLength(before.length);
  });
});

describe('GET /v1/mandates and /v1/mandates/:id', () => {
  let a: MandateAgent;
  let b: MandateAgent;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    a = await mandateAgent(acct.test);
    b = await mandateAgent(acct.test);
    ids.a1 = (await issueMandate(acct.test, a.agentId)).id;
    ids.a2 = (await issueMandate(acct.test, a.agentId, { expires_in: 60 })).id;
    ids.a3 = (await issueMandate(acct.test, a.agentId)).id;
    ids.b1 = (await issueMandate(acct.test, b.agentId)).id;
    ids.b2 = (await issueMandate(acct.test, b.agentId)).id;
    expect((await acct.test.post(`/v1/mandates/${ids.a3}/revoke`)).status).toBe(200);
    // What an approved single-use presentation leaves (the verify path's own update, made directly here).
    await ctx.database.db.updateTable('mandates').set({ status: 'used', uses: 1, budget_used: 700, last_used_at: new Date() }).where('id', '=', ids.b2!).execute();
  });

  test('a used mandate reads and filters as used, with its counters; revoking it changes nothing and records nothing', async () => {
    const used = await acct.test.get(`/v1/mandates?agent_id=${b.agentId}&status=used`);
    expect(used.body.data.map((m: any) => m.id)).toEqual([ids.b2]);
    expect(used.body.data[0]).toMatchObject({ status: 'used', uses: 1, budget_used: 700, last_used_at: expect.any(String) });
    const revoke = await acct.test.post(`/v1/mandates/${ids.b2}/revoke`);
    expect(revoke.status).toBe(200);
    expect(revoke.body).toMatchObject({ status: 'used', revoked_at: null });
    expect(await auditOf('mandate.revoked', b.agentId)).toHaveLength(0);
  });

  test('newest first, filtered by agent_id and status, paginated', async () => {
    const all = await acct.test.get(`/v1/mandates?agent_id=${a.agentId}`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(all.body.data.map((m: any) => m.id)).toEqual([ids.a3, ids.a2, ids.a1]);
    const revoked = await acct.test.get(`/v1/mandates?agent_id=${a.agentId}&status=revoked`);
    expect(revoked.body.data.map((m: any) => m.id)).toEqual([ids.a3]);
    const active = await acct.test.get(`/v1/mandates?agent_id=${a.agentId}&status=active`);
    expect(active.body.data.map((m: any) => m.id)).toEqual([ids.a2, ids.a1]);
    const page1 = await acct.test.get(`/v1/mandates?agent_id=${a.agentId}&limit=2`);
    expect(page1.body.data.map((m: any) => m.id)).toEqual([ids.a3, ids.a2]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await acct.test.get(`/v1/mandates?agent_id=${a.agentId}&limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data.map((m: any) => m.id)).toEqual([ids.a1]);
    const everyone = await acct.test.get('/v1/mandates?limit=100');
    expect(everyone.body.data.map((m: any) => m.id)).toEqual(expect.arrayContaining([ids.a1, ids.b1]));
  });

  test('expired is read from the clock: active past expires_at reads and filters as expired (and still as used/revoked otherwise)', async () => {
    offsetMs = 61_000;
    try {
      const got = await acct.test.get(`/v1/mandates/${ids.a2}`);
      expect(got.body.status).toBe('expired');
      const expired = await acct.test.get(`/v1/mandates?agent_id=${a.agentId}&status=expired`);
      expect(expired.body.data.map((m: any) => m.id)).toEqual([ids.a2]);
      const active = await acct.test.get(`/v1/mandates?agent_id=${a.agentId}&status=active`);
      expect(active.body.data.map((m: any) => m.id)).toEqual([ids.a1]);
    } finally {
      offsetMs = 0;
    }
    expect((await acct.test.get(`/v1/mandates/${ids.a2}`)).body.status).toBe('active');
  });

  test('revoking an expired mandate: past the 300 s a presentation may still be late by, nothing is left to revoke; within them it is revoked', async () => {
    const own = await mandateAgent(acct.test);
    const late = (await issueMandate(acct.test, own.agentId, { expires_in: 60 })).id;
    const grace = (await issueMandate(acct.test, own.agentId, { expires_in: 60 })).id;
    offsetMs = 60_000 + 301_000;
    try {
      // Answered as it is, no record: no presentation can pass step 4 any more.
      const revoke = await acct.test.post(`/v1/mandates/${late}/revoke`);
      expect(revoke.status).toBe(200);
      expect(revoke.body).toMatchObject({ status: 'expired', revoked_at: null });
    } finally {
      offsetMs = 0;
    }
    offsetMs = 61_000;
    try {
      // Expired by its own clock, yet a presentation may still be accepted for 300 s (§20's skew): revoked.
      const revoke = await acct.test.post(`/v1/mandates/${grace}/revoke`);
      expect(revoke.status).toBe(200);
      expect(revoke.body.status).toBe('revoked');
      expect(revoke.body.revoked_at).not.toBeNull();
    } finally {
      offsetMs = 0;
    }
    const records = await auditOf('mandate.revoked', own.agentId);
    const revoked = records.map((r) => (r.metadata as any).mandate_id);
    expect(revoked).toContain(grace);
    expect(revoked).not.toContain(late);
  });

  test("an agent key reads its own agent's mandates only: another agent's is 404, its list is its own", async () => {
    const keyA = await agentApiKey(ctx, acct.test, a.agentId);
    expect((await keyA.get(`/v1/mandates/${ids.a1}`)).status).toBe(200);
    const theirs = await keyA.get(`/v1/mandates/${ids.b1}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error).toMatchObject({ code: 'not_found', param: 'id' });
    const listed = await keyA.get('/v1/mandates?limit=100');
    expect(listed.body.data.map((m: any) => m.id).sort()).toEqual([ids.a1, ids.a2, ids.a3].sort());
    expect((await keyA.get(`/v1/mandates?agent_id=${b.agentId}`)).body.data).toEqual([]);
  });

  test('a reviewer reads them; another account or mode sees none (404)', async () => {
    expect((await reviewer.get(`/v1/mandates/${ids.b1}`)).status).toBe(200);
    expect((await reviewer.get(`/v1/mandates?agent_id=${b.agentId}`)).body.data).toHaveLength(2);
    const stranger = await ctx.account('growth');
    expect((await stranger.test.get(`/v1/mandates/${ids.a1}`)).status).toBe(404);
    expect((await stranger.test.get('/v1/mandates')).body.data).toEqual([]);
    expect((await acct.live!.get(`/v1/mandates/${ids.a1}`)).status).toBe(404);
    expect((await acct.test.get('/v1/mandates/mdt_doesnotexist')).status).toBe(404);
  });

  test('400 for a bad filter', async () => {
    for (const [q, param] of [
      ['status=pending', 'status'],
      ['limit=101', 'limit'],
      ['cursor=nope', 'cursor'],
      ['colour=red', 'colour'],
    ]) {
      const res = await acct.test.get(`/v1/mandates?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
  });
});

describe('POST /v1/mandates/:id/revoke', () => {
  test('200 revoked, repeatable (the same object again), one mandate.revoked record; still readable', async () => {
    const a = await mandateAgent(acct.test);
    const m = await issueMandate(acct.test, a.agentId);
    const first = await acct.test.post(`/v1/mandates/${m.id}/revoke`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: m.id, status: 'revoked', revoked_at: expect.any(String), credential: m.credential });
    const again = await acct.test.post(`/v1/mandates/${m.id}/revoke`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const records = await auditOf('mandate.revoked', a.agentId);
    expect(records).toHaveLength(1);
    expect(records[0]!.metadata).toEqual({ mandate_id: m.id, agent_key_id: a.agentKeyId });
    expect(records[0]!.actor_type).toBe('api_key');
    expect((await acct.test.get(`/v1/mandates/${m.id}`)).body).toEqual(first.body);
  });

  test('reviewer and agent keys → 403; unknown, another account or mode → 404; nothing changes', async () => {
    const a = await mandateAgent(acct.test);
    const m = await issueMandate(acct.test, a.agentId);
    const keyA = await agentApiKey(ctx, acct.test, a.agentId);
    for (const client of [reviewer, keyA]) expect((await client.post(`/v1/mandates/${m.id}/revoke`)).status).toBe(403);
    const stranger = await ctx.account('growth');
    for (const [client, id] of [
      [stranger.test, m.id],
      [acct.live!, m.id],
      [acct.test, 'mdt_doesnotexist'],
    ] as const) {
      const res = await client.post(`/v1/mandates/${id}/revoke`);
      expect(res.status).toBe(404);
      expect(res.body.error.param).toBe('id');
    }
    expect((await acct.test.get(`/v1/mandates/${m.id}`)).body.status).toBe('active');
    expect(await auditOf('mandate.revoked', a.agentId)).toHaveLength(0);
  });

  test('concurrent revocations of one mandate: all 200, one record', async () => {
    const a = await mandateAgent(acct.test);
    const m = await issueMandate(acct.test, a.agentId);
    const answers = await Promise.all(Array.from({ length: 8 }, () => acct.test.post(`/v1/mandates/${m.id}/revoke`)));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(answers.map((r) => r.body.revoked_at)).size).toBe(1);
    expect(await auditOf('mandate.revoked', a.agentId)).toHaveLength(1);
  });
});

describe('POST /v1/mandates/verify: mounted with its roles, 400 for the body', () => {
  test('a reviewer → 403; no key → 401', async () => {
    const res = await reviewer.post('/v1/mandates/verify', { presentation: 'x~~y~' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    const anonymous = await ctx.raw('/v1/mandates/verify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ presentation: 'x~~y~' }) });
    expect(anonymous.status).toBe(401);
  });

  test.each([
    ['no presentation', {}, 'presentation'],
    ['an empty presentation', { presentation: '' }, 'presentation'],
    ['a presentation that is not a string', { presentation: 42 }, 'presentation'],
    ['an open_checkout_hash that is not a digest', { presentation: 'x~~y~', open_checkout_hash: 'short' }, 'open_checkout_hash'],
    ['an unknown field', { presentation: 'x~~y~', mandate_id: 'mdt_1' }, 'mandate_id'],
  ])('400 for %s (admin and agent keys alike), naming %s', async (_what, body, param) => {
    for (const client of [acct.test, ownAgentKey]) {
      const res = await client.post('/v1/mandates/verify', body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
    }
  });
});
