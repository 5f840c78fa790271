/**
 * An agent's whole signed journey through the public surface only (DECISIONS §19): the admin
 * creates a policy with `require_signed_requests`, registers the agent's public JWK with
 * `POST /v1/agents/:id/keys`, and the agent calls the service with `spend-auth/client` wrapped in
 * `signingFetch`. No row is written behind the API's back.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApiCall, createApiClient, createRequestSigner, signingFetch } from '../../src/client/index.js';
import { createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { until } from '../support/wait.js';

let ctx: TestContext;
let acct: TestAccount;
beforeAll(async () => {
  ctx = await createTestContext();
  acct = await ctx.account();
});
afterAll(() => ctx?.close());

const fetchOf: (req: Request) => Promise<Response> = (req) => fetch(req);

for (const alg of ['ed25519', 'ecdsa-p256-sha256'] as const) {
  test(`${alg}: unsigned is refused, signed with the client is approved and recorded, a revoked key no longer verifies`, async () => {
    const { privateKey, publicKey } = alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const policy = await acct.test.post('/v1/policies', { ...policyBody(), require_signed_requests: true });
    expect(policy.status, policy.text).toBe(201);
    expect(policy.body.require_signed_requests).toBe(true);
    const agentId = (await acct.test.post('/v1/agents', { name: `signer ${alg}`, policy_id: policy.body.id })).body.id as string;
    const registered = await acct.test.post(`/v1/agents/${agentId}/keys`, { jwk: publicKey.export({ format: 'jwk' }), name: 'laptop' });
    expect(registered.status, registered.text).toBe(201);
    expect(registered.body).toMatchObject({ object: 'agent_key', agent_id: agentId, alg, status: 'active', last_used_at: null });
    const apiKey = (await acct.test.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agentId })).body.key as string;
    const spend = { agent_id: agentId, amount: 250, currency: 'USD', vendor: 'shop.example' };

    // The bearer key alone: what a leaked .env gives.
    const unsigned = createApiClient({ baseUrl: ctx.baseUrl, apiKey, fetch: fetchOf });
    const refused = await unsigned.POST('/v1/authorize', { body: spend });
    expect(refused.response.status).toBe(401);
    expect((refused.error as { error: { code: string } }).error.code).toBe('signature_required');

    const signer = await createRequestSigner({ privateJwk: privateKey.export({ format: 'jwk' }) as Record<string, string> });
    expect(signer.keyid).toBe(registered.body.thumbprint);
    const call = createApiCall({ baseUrl: ctx.baseUrl, apiKey }, signingFetch(fetchOf, signer));
    const approved = await call((c, init) => c.POST('/v1/authorize', { body: spend, ...init }));
    expect(approved.ok, JSON.stringify(approved)).toBe(true);
    const decision = (approved as { ok: true; body: { decision: string; decision_id: string; signature: Record<string, unknown> } }).body;
    expect(decision.decision).toBe('approved');
    expect(decision.signature).toMatchObject({ agent_key_id: registered.body.id, keyid: registered.body.thumbprint, alg, signature_agent: null });

    // A signed read by the agent; the admin sees the signature and the audit record's signer.
    const read = await call((c, init) => c.GET('/v1/decisions/{id}', { params: { path: { id: decision.decision_id } }, ...init }));
    expect(read.ok).toBe(true);
    const audit = await acct.test.get(`/v1/audit-logs?agent_id=${agentId}&type=authorization.decision`);
    expect(audit.body.data.find((r: { decision_id: string }) => r.decision_id === decision.decision_id), audit.text).toMatchObject({ signed_by: registered.body.thumbprint });
    expect((await acct.test.get('/v1/audit-logs/verify')).body.valid).toBe(true);
    await until('last_used_at moves', async () => ((await acct.test.get(`/v1/agents/${agentId}/keys/${registered.body.id}`)).body.last_used_at ? true : undefined), 10_000, 100);

    const revoked = await acct.test.delete(`/v1/agents/${agentId}/keys/${registered.body.id}`);
    expect(revoked.body).toMatchObject({ status: 'revoked' });
    const after = await call((c, init) => c.POST('/v1/authorize', { body: spend, ...init }));
    expect(after).toMatchObject({ ok: false, status: 401, code: 'signature_key_unknown' });
  }, 60_000);
}
