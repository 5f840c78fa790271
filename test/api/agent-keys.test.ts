/**
 * Agents' public signing keys (DECISIONS §19): `POST/GET /v1/agents/:id/keys`,
 * `GET/DELETE /v1/agents/:id/keys/:key_id`, through the real app on a real database.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let policyId: string;
let agentId: string;
let reviewer: Client;
let ownAgent: Client;
let otherAgentKey: Client;

const ed25519 = () => generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) as { kty: 'OKP'; crv: 'Ed25519'; x: string };
const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as { kty: 'EC'; crv: 'P-256'; x: string; y: string };
const RFC9421_ED25519 = { kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' };
const RFC9421_P256 = { kty: 'EC', crv: 'P-256', x: 'qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA', y: 'Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0' };

async function newAgent(client: Client = acct.test, policy = policyId): Promise<string> {
  const res = await client.post('/v1/agents', { name: 'signer', policy_id: policy });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const auditOf = (type: string, agent: string) =>
  ctx.database.db.selectFrom('audit_records').selectAll().where('account_id', '=', acct.id).where('type', '=', type).where('agent_id', '=', agent).execute();

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 1000 });
  acct = await ctx.account('growth');
  policyId = (await acct.test.post('/v1/policies', policyBody())).body.id;
  agentId = await newAgent();
  const otherAgent = await newAgent();
  reviewer = ctx.client((await acct.test.post('/v1/api-keys', { name: 'r', role: 'reviewer' })).body.key);
  ownAgent = ctx.client((await acct.test.post('/v1/api-keys', { name: 'a', role: 'agent', agent_id: agentId })).body.key);
  otherAgentKey = ctx.client((await acct.test.post('/v1/api-keys', { name: 'b', role: 'agent', agent_id: otherAgent })).body.key);
});
afterAll(() => ctx?.close());

describe('POST /v1/agents/:id/keys', () => {
  test('201: the key object, its JWK kept as just the public members, and an agent_key.created record', async () => {
    const agent = await newAgent();
    const jwk = ed25519();
    const res = await acct.test.post(`/v1/agents/${agent}/keys`, { jwk: { ...jwk, alg: 'EdDSA', use: 'sig' }, name: '  laptop  ' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^akey_[0-9A-Za-z]+$/),
      object: 'agent_key',
      agent_id: agent,
      name: 'laptop',
      alg: 'ed25519',
      jwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x },
      thumbprint: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      directory_url: null,
      status: 'active',
      last_used_at: null,
      revoked_at: null,
      created_at: expect.any(String),
      livemode: false,
    });
    const stored = await ctx.database.db.selectFrom('agent_keys').selectAll().where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(stored.jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: jwk.x });
    const records = await auditOf('agent_key.created', agent);
    expect(records).toHaveLength(1);
    expect(records[0]!.metadata).toMatchObject({ agent_key_id: res.body.id, thumbprint: res.body.thumbprint, alg: 'ed25519' });
    expect(records[0]!.actor_type).toBe('api_key');
  });

  test('a P-256 key: alg ecdsa-p256-sha256, x and y; no name → null', async () => {
    const jwk = p256();
    const res = await acct.test.post(`/v1/agents/${agentId}/keys`, { jwk });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ alg: 'ecdsa-p256-sha256', jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, name: null });
  });

  test('reviewer keys and agent keys (its own agent included) → 403, nothing written', async () => {
    const agent = await newAgent();
    for (const client of [reviewer, ownAgent]) {
      const res = await client.post(`/v1/agents/${client === ownAgent ? agentId : agent}/keys`, { jwk: ed25519() });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect(await auditOf('agent_key.created', agent)).toHaveLength(0);
  });

  test.each([
    ['a private key', { jwk: { ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) } }, 'jwk'],
    ['an RSA key', { jwk: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }) }, 'jwk'],
    ['a kid other than the thumbprint', { jwk: { ...ed25519(), kid: 'key-1' } }, 'jwk.kid'],
    ['a jwk that is not an object', { jwk: 'ed25519' }, 'jwk'],
    ['no jwk', {}, 'jwk'],
    ['an unknown field', { jwk: ed25519(), label: 'x' }, 'label'],
    ['a blank name', { jwk: ed25519(), name: '   ' }, 'name'],
    ['a name over 200 characters', { jwk: ed25519(), name: 'n'.repeat(201) }, 'name'],
  ])('%s → 400 naming %s', async (_name, body, param) => {
    const res = await acct.test.post(`/v1/agents/${agentId}/keys`, body);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  test('an unknown agent → 404 id', async () => {
    const res = await acct.test.post('/v1/agents/agt_missing/keys', { jwk: ed25519() });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', param: 'id' });
  });

  test('a deactivated agent → 409 conflict (a frozen one still takes keys)', async () => {
    const frozen = await newAgent();
    await acct.test.post(`/v1/agents/${frozen}/freeze`);
    expect((await acct.test.post(`/v1/agents/${frozen}/keys`, { jwk: ed25519() })).status).toBe(201);
    const gone = await newAgent();
    await acct.test.delete(`/v1/agents/${gone}`);
    const res = await acct.test.post(`/v1/agents/${gone}/keys`, { jwk: ed25519() });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', param: 'id' });
  });

  test('at most 10 active keys: the 11th → 409; after a revocation there is room again', async () => {
    const agent = await newAgent();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await acct.test.post(`/v1/agents/${agent}/keys`, { jwk: i % 2 ? p256() : ed25519() });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.id);
    }
    const eleventh = await acct.test.post(`/v1/agents/${agent}/keys`, { jwk: ed25519() });
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.error.code).toBe('conflict');
    expect((await acct.test.delete(`/v1/agents/${agent}/keys/${ids[0]}`)).status).toBe(200);
    expect((await acct.test.post(`/v1/agents/${agent}/keys`, { jwk: ed25519() })).status).toBe(201);
  });

  test('at most 10 active keys also when 15 are registered at once (the agent is locked while counting)', async () => {
    const agent = await newAgent();
    const answers = await Promise.all(Array.from({ length: 15 }, () => acct.test.post(`/v1/agents/${agent}/keys`, { jwk: ed25519() })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(10);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(5);
    const active = await ctx.database.db.selectFrom('agent_keys').select('id').where('agent_id', '=', agent).where('status', '=', 'active').execute();
    expect(active).toHaveLength(10);
  });

  test('a thumbprint active on any agent of the account and mode → 409 jwk; once revoked it can be registered again', async () => {
    const [a, b] = [await newAgent(), await newAgent()];
    const jwk = ed25519();
    const first = await acct.test.post(`/v1/agents/${a}/keys`, { jwk });
    expect(first.status).toBe(201);
    for (const agent of [a, b]) {
      const again = await acct.test.post(`/v1/agents/${agent}/keys`, { jwk });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'conflict', param: 'jwk' });
    }
    await acct.test.delete(`/v1/agents/${a}/keys/${first.body.id}`);
    const moved = await acct.test.post(`/v1/agents/${b}/keys`, { jwk });
    expect(moved.status).toBe(201);
    expect(moved.body.thumbprint).toBe(first.body.thumbprint);
  });

  test('one thumbprint registered for two agents at once: one wins, the other → 409', async () => {
    const [a, b] = [await newAgent(), await newAgent()];
    const jwk = p256();
    const answers = await Promise.all([a, b, a, b].map((agent) => acct.test.post(`/v1/agents/${agent}/keys`, { jwk })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  test('the same public key in another account or in live mode is another registration', async () => {
    const jwk = ed25519();
    expect((await acct.test.post(`/v1/agents/${agentId}/keys`, { jwk })).status).toBe(201);
    const other = await ctx.account('growth');
    const otherPolicy = (await other.test.post('/v1/policies', policyBody())).body.id;
    expect((await other.test.post(`/v1/agents/${await newAgent(other.test, otherPolicy)}/keys`, { jwk })).status).toBe(201);
    const livePolicy = (await acct.live!.post('/v1/policies', policyBody())).body.id;
    expect((await acct.live!.post(`/v1/agents/${await newAgent(acct.live!, livePolicy)}/keys`, { jwk })).status).toBe(201);
  });
});

describe("RFC 9421's test keys", () => {
  test('refused in live mode → 400 jwk', async () => {
    const livePolicy = (await acct.live!.post('/v1/policies', policyBody())).body.id;
    const agent = await newAgent(acct.live!, livePolicy);
    for (const jwk of [RFC9421_ED25519, RFC9421_P256]) {
      const res = await acct.live!.post(`/v1/agents/${agent}/keys`, { jwk });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'jwk' });
    }
    expect(await ctx.database.db.selectFrom('agent_keys').select('id').where('agent_id', '=', agent).execute()).toHaveLength(0);
  });

  test('accepted in test mode, so the drafts’ vectors replay', async () => {
    const agent = await newAgent();
    const answers = [await acct.test.post(`/v1/agents/${agent}/keys`, { jwk: RFC9421_ED25519 }), await acct.test.post(`/v1/agents/${agent}/keys`, { jwk: RFC9421_P256 })];
    expect(answers.map((r) => [r.status, r.body.thumbprint])).toEqual([
      [201, 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U'],
      [201, 'ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI'],
    ]);
  });
});

describe('GET /v1/agents/:id/keys and /:key_id', () => {
  let agent: string;
  let keys: { id: string; status: string }[];
  let agentClient: Client;

  beforeAll(async () => {
    agent = await newAgent();
    agentClient = ctx.client((await acct.test.post('/v1/api-keys', { name: 'own', role: 'agent', agent_id: agent })).body.key);
    keys = [];
    for (let i = 0; i < 5; i++) keys.push((await acct.test.post(`/v1/agents/${agent}/keys`, { jwk: ed25519(), name: `k${i}` })).body);
    await acct.test.delete(`/v1/agents/${agent}/keys/${keys[1]!.id}`);
    await acct.test.delete(`/v1/agents/${agent}/keys/${keys[3]!.id}`);
  });

  test('admin, reviewer and the agent’s own agent key read the list and each key', async () => {
    for (const client of [acct.test, reviewer, agentClient]) {
      const list = await client.get(`/v1/agents/${agent}/keys`);
      expect(list.status).toBe(200);
      expect(list.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
      expect(list.body.data.map((k: { id: string }) => k.id)).toEqual(keys.map((k) => k.id).reverse());
      const one = await client.get(`/v1/agents/${agent}/keys/${keys[0]!.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toEqual(list.body.data.at(-1));
    }
  });

  test('another agent’s agent key → 404 (as for the agent itself)', async () => {
    for (const path of [`/v1/agents/${agent}/keys`, `/v1/agents/${agent}/keys/${keys[0]!.id}`]) {
      const res = await otherAgentKey.get(path);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', param: 'id' });
    }
  });

  test('filter status', async () => {
    const active = (await acct.test.get(`/v1/agents/${agent}/keys?status=active`)).body.data.map((k: { id: string }) => k.id);
    const revoked = (await acct.test.get(`/v1/agents/${agent}/keys?status=revoked`)).body.data.map((k: { id: string }) => k.id);
    expect(active).toEqual([keys[4]!.id, keys[2]!.id, keys[0]!.id]);
    expect(revoked).toEqual([keys[3]!.id, keys[1]!.id]);
    expect((await acct.test.get(`/v1/agents/${agent}/keys?status=expired`)).body.error).toMatchObject({ code: 'invalid_request', param: 'status' });
  });

  test('pagination: limit and cursor walk every key once, newest first; limit above 100 → 400', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; next_cursor: string | null; has_more: boolean } } = await acct.test.get(`/v1/agents/${agent}/keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((k) => k.id));
      cursor = page.body.next_cursor;
      expect(page.body.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(keys.map((k) => k.id).reverse());
    expect((await acct.test.get(`/v1/agents/${agent}/keys?limit=101`)).body.error).toMatchObject({ code: 'invalid_request', param: 'limit' });
    expect((await acct.test.get(`/v1/agents/${agent}/keys?cursor=bogus`)).body.error).toMatchObject({ code: 'invalid_request', param: 'cursor' });
  });

  test('a key under another agent’s path, an unknown key → 404 key_id; an unknown agent → 404 id', async () => {
    const res = await acct.test.get(`/v1/agents/${agentId}/keys/${keys[0]!.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.param).toBe('key_id');
    expect((await acct.test.get(`/v1/agents/${agent}/keys/akey_missing`)).body.error.param).toBe('key_id');
    expect((await acct.test.get('/v1/agents/agt_missing/keys')).body.error).toMatchObject({ code: 'not_found', param: 'id' });
  });

  test('another account, or the other mode, sees nothing → 404', async () => {
    const other = await ctx.account('growth');
    for (const client of [other.test, acct.live!]) {
      for (const res of [
        await client.get(`/v1/agents/${agent}/keys`),
        await client.get(`/v1/agents/${agent}/keys/${keys[0]!.id}`),
        await client.delete(`/v1/agents/${agent}/keys/${keys[0]!.id}`),
        await client.post(`/v1/agents/${agent}/keys`, { jwk: ed25519() }),
      ]) {
        expect(res.status, res.text).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    }
    expect((await acct.test.get(`/v1/agents/${agent}/keys/${keys[0]!.id}`)).body.status).toBe('active');
  });
});

describe('DELETE /v1/agents/:id/keys/:key_id', () => {
  test('200 revoked, twice, with one agent_key.revoked record', async () => {
    const agent = await newAgent();
    const key = (await acct.test.post(`/v1/agents/${agent}/keys`, { jwk: ed25519() })).body;
    const first = await acct.test.delete(`/v1/agents/${agent}/keys/${key.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: key.id, status: 'revoked', revoked_at: expect.any(String), thumbprint: key.thumbprint });
    const second = await acct.test.delete(`/v1/agents/${agent}/keys/${key.id}`);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const records = await auditOf('agent_key.revoked', agent);
    expect(records).toHaveLength(1);
    expect(records[0]!.metadata).toMatchObject({ agent_key_id: key.id, thumbprint: key.thumbprint });
  });

  test('reviewer and agent keys → 403; the key stays active', async () => {
    const key = (await acct.test.post(`/v1/agents/${agentId}/keys`, { jwk: ed25519() })).body;
    for (const client of [reviewer, ownAgent]) {
      const res = await client.delete(`/v1/agents/${agentId}/keys/${key.id}`);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect((await acct.test.get(`/v1/agents/${agentId}/keys/${key.id}`)).body.status).toBe('active');
  });

  test('a deactivated agent keeps its keys as they are, and an admin can still revoke them', async () => {
    const agent = await newAgent();
    const key = (await acct.test.post(`/v1/agents/${agent}/keys`, { jwk: ed25519() })).body;
    await acct.test.delete(`/v1/agents/${agent}`);
    expect((await acct.test.get(`/v1/agents/${agent}/keys/${key.id}`)).body.status).toBe('active');
    expect((await acct.test.delete(`/v1/agents/${agent}/keys/${key.id}`)).body.status).toBe('revoked');
  });
});
