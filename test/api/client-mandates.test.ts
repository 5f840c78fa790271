/**
 * `spend-auth/client`'s mandates (DECISIONS §20) against the real service, through the public
 * surface only: the admin issues, reads, lists and revokes with `createMandates`; the agent closes
 * the credential with `closeMandate` and presents it with its own key, signing its requests with
 * the same P-256 key (`signingFetch`); the receipt is checked offline against the JWKS.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeMandate, createMandates, createRequestSigner, signingFetch, type Mandate, type MandatesClient } from '../../src/client/index.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account();
});
afterAll(() => ctx?.close());

const PAYEE = { id: 'cat-store', name: 'Cat Store', website: 'https://cats.example' };
const INSTRUMENT = { id: 'card-1', type: 'card', description: 'Visa …4242' };
const b64sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

interface Agent {
  agentId: string;
  agentKeyId: string;
  /** The agent key's private JWK: the mandate's `cnf`, and the key its requests are signed with. */
  privateJwk: JWK;
  /** The agent-role API key. */
  apiKey: string;
}

/** A policy (signed requests required when `signed`), an agent, its P-256 key and an agent-role key, all through the API. */
async function agent(signed = false): Promise<Agent> {
  const policy = await acct.test.post('/v1/policies', { ...policyBody(), require_signed_requests: signed });
  expect(policy.status, policy.text).toBe(201);
  const created = await acct.test.post('/v1/agents', { name: 'cat-food-bot', policy_id: policy.body.id });
  expect(created.status, created.text).toBe(201);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateJwk = privateKey.export({ format: 'jwk' }) as JWK;
  const { d: _private, ...publicJwk } = privateJwk;
  const key = await acct.test.post(`/v1/agents/${created.body.id}/keys`, { jwk: publicJwk, name: 'cat-food-bot' });
  expect(key.status, key.text).toBe(201);
  const apiKey = await acct.test.post('/v1/api-keys', { name: 'cat-food-bot', role: 'agent', agent_id: created.body.id });
  expect(apiKey.status, apiKey.text).toBe(201);
  return { agentId: created.body.id, agentKeyId: key.body.id, privateJwk, apiKey: apiKey.body.key };
}

const admin = (): MandatesClient => createMandates({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: acct.test.key });

function issueBody(a: Agent, extra: Record<string, unknown> = {}) {
  return { agent_id: a.agentId, open_checkout_hash: b64sha256(`cart-${randomBytes(4).toString('hex')}`), payees: [PAYEE], payment_instruments: [INSTRUMENT], amount_max: 5_000, ...extra };
}

async function issued(client: MandatesClient, body: ReturnType<typeof issueBody>): Promise<Mandate> {
  const res = await client.create(body);
  expect(res.ok, JSON.stringify(res)).toBe(true);
  return (res as { body: Mandate }).body;
}

/** The closed mandate for one payment, as the agent makes it. */
async function close(a: Agent, mandate: Mandate, amount = 4_200) {
  const { iss } = JSON.parse(Buffer.from(mandate.credential.split('.')[1]!, 'base64url').toString('utf8')) as { iss: string };
  return closeMandate(mandate.credential, {
    agentJwk: a.privateJwk,
    transaction_id: b64sha256(`checkout-${randomBytes(8).toString('hex')}`),
    payee: PAYEE,
    payment_amount: { amount, currency: 'USD' },
    payment_instrument: INSTRUMENT,
    aud: iss,
    nonce: randomBytes(16).toString('base64url'),
  });
}

describe('mandates through spend-auth/client', () => {
  test('an admin issues, reads, lists and revokes; revoking again answers the same object', async () => {
    const a = await agent();
    const client = admin();
    const body = issueBody(a, { budget: 12_000, recurrence: { frequency: 'MONTHLY', max_occurrences: 3 }, category: 'pet-supplies' });
    const mandate = await issued(client, body);
    expect(mandate).toMatchObject({ object: 'mandate', agent_id: a.agentId, agent_key_id: a.agentKeyId, status: 'active', category: 'pet-supplies', uses: 0, budget_used: 0, revoked_at: null, livemode: false });
    expect(mandate.id).toMatch(/^mdt_/);
    expect(mandate.credential.endsWith('~')).toBe(true);
    expect(mandate.open_mandate).toMatchObject({ vct: 'mandate.payment.open.1' });

    const read = await client.get(mandate.id);
    expect(read.ok && read.body).toEqual(mandate);

    const listed = await client.list({ agent_id: a.agentId });
    expect(listed.ok, JSON.stringify(listed)).toBe(true);
    expect(listed.ok && listed.body.data.map((m) => m.id)).toEqual([mandate.id]);
    const noneRevoked = await client.list({ agent_id: a.agentId, status: 'revoked' });
    expect(noneRevoked.ok && noneRevoked.body.data).toEqual([]);

    const revoked = await client.revoke(mandate.id);
    expect(revoked.ok, JSON.stringify(revoked)).toBe(true);
    expect(revoked.ok && revoked.body).toMatchObject({ id: mandate.id, status: 'revoked' });
    expect(revoked.ok && revoked.body.revoked_at).toEqual(expect.any(String));
    const again = await client.revoke(mandate.id);
    expect(again.ok && again.body).toEqual(revoked.ok && revoked.body);
    const nowRevoked = await client.list({ agent_id: a.agentId, status: 'revoked' });
    expect(nowRevoked.ok && nowRevoked.body.data.map((m) => m.id)).toEqual([mandate.id]);
  });

  test("refusals are {ok: false} with the API's code and status, never a throw", async () => {
    const a = await agent();
    const other = await agent();
    const mandate = await issued(admin(), issueBody(a));

    // No agent authorizes itself.
    const selfIssued = await createMandates({ baseUrl: ctx.baseUrl, apiKey: a.apiKey }).create(issueBody(a));
    expect(selfIssued).toMatchObject({ ok: false, status: 403, code: 'forbidden' });
    const badHash = await admin().create({ ...issueBody(a), open_checkout_hash: 'short' });
    expect(badHash).toMatchObject({ ok: false, status: 400, code: 'invalid_request' });
    const unknown = await admin().get('mdt_000000000000000000000000');
    expect(unknown).toMatchObject({ ok: false, status: 404, code: 'not_found' });

    // An agent's key reads its own agent's mandates, and another agent's not at all.
    const own = await createMandates({ baseUrl: ctx.baseUrl, apiKey: a.apiKey }).get(mandate.id);
    expect(own.ok && own.body.id).toBe(mandate.id);
    const foreign = await createMandates({ baseUrl: ctx.baseUrl, apiKey: other.apiKey }).get(mandate.id);
    expect(foreign).toMatchObject({ ok: false, status: 404 });

    const unreachable = await createMandates({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: acct.test.key }).get(mandate.id);
    expect(unreachable).toMatchObject({ ok: false, code: 'network_error' });
  });

  test('the agent closes with closeMandate and presents it signed; the receipt verifies against the JWKS; a second presentation replays', async () => {
    const a = await agent(true);
    const mandate = await issued(admin(), issueBody(a));
    const signer = await createRequestSigner({ privateJwk: a.privateJwk });
    const agentClient = createMandates({ baseUrl: ctx.baseUrl, apiKey: a.apiKey, fetch: signingFetch((req) => fetch(req), signer) });

    // The policy requires signed requests: the bearer key alone is refused.
    const unsigned = await createMandates({ baseUrl: ctx.baseUrl, apiKey: a.apiKey }).get(mandate.id);
    expect(unsigned).toMatchObject({ ok: false, status: 401, code: 'signature_required' });

    const presentation = await close(a, mandate);
    const openCheckoutHash = issueBody(a).open_checkout_hash; // another checkout than the mandate's
    const wrongCheckout = await agentClient.verify({ presentation, open_checkout_hash: openCheckoutHash });
    expect(wrongCheckout.ok, JSON.stringify(wrongCheckout)).toBe(true);
    // That was a decision (a denial), so the presentation is spent: close it afresh for the right checkout.
    expect(wrongCheckout.ok && wrongCheckout.body).toMatchObject({ status: 'Error', error: 'invalid_mandate', mandate_id: mandate.id });
    expect(wrongCheckout.ok && wrongCheckout.body.error_description).toMatch(/^payment\.reference/);

    const checkout = (mandate.open_mandate as { constraints: { type: string; conditional_transaction_id?: string }[] }).constraints.find((c) => c.type === 'payment.reference')!.conditional_transaction_id!;
    const fresh = await close(a, mandate);
    const first = await agentClient.verify({ presentation: fresh, open_checkout_hash: checkout });
    expect(first.ok, JSON.stringify(first)).toBe(true);
    if (!first.ok) return;
    expect(first.replayed).toBe(false);
    expect(first.body).toMatchObject({ object: 'mandate_verification', status: 'Success', error: null, error_description: null, mandate_id: mandate.id });
    expect(first.body.authorization_token).toMatch(/^gca_/);
    const closedJwt = fresh.split('~~')[1]!.split('~')[0]!;
    expect(first.body.reference).toBe(b64sha256(closedJwt));

    // The receipt, offline: the JWKS's ES256 key by kid, our issuer, this account as audience.
    const jwks = (await (await fetch(`${ctx.baseUrl}/v1/.well-known/jwks.json`)).json()) as { keys: JWK[] };
    const { payload, protectedHeader } = await jwtVerify(first.body.receipt, createLocalJWKSet(jwks), { algorithms: ['ES256'], typ: 'payment-receipt+jwt', audience: acct.id });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'payment-receipt+jwt' });
    expect(payload).toMatchObject({ status: 'Success', reference: first.body.reference, payment_id: first.body.decision_id, psp_confirmation_id: first.body.decision_id, network_confirmation_id: first.body.decision_id, livemode: false });

    // Presented again: the first answer, flagged as a replay; nothing counted twice.
    const replay = await agentClient.verify({ presentation: fresh, open_checkout_hash: checkout });
    expect(replay.ok && replay.replayed).toBe(true);
    expect(replay.ok && replay.body).toEqual(first.body);

    // Single-use (no recurrence): used after its one approval; the next payment is refused.
    const after = await admin().get(mandate.id);
    expect(after.ok && after.body).toMatchObject({ status: 'used', uses: 1, budget_used: 4_200 });
    const second = await agentClient.verify({ presentation: await close(a, mandate), open_checkout_hash: checkout });
    expect(second.ok && second.body).toMatchObject({ status: 'Error', error: 'invalid_mandate' });
    expect(second.ok && 'authorization_token' in second.body).toBe(false);
    expect(second.ok && second.body.decision_id).toMatch(/^dec_/);

    const decision = await acct.test.get(`/v1/decisions/${first.body.decision_id}`);
    expect(decision.body).toMatchObject({ decision: 'approved', amount: 4_200, currency: 'USD', mandate: { id: mandate.id, reference: first.body.reference } });
  });
});
