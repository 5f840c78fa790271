/**
 * AP2 mandates (DECISIONS §20), for tests: an agent with a policy and a P-256 agent key registered
 * through `POST /v1/agents/:id/keys` (§19), the key's private JWK (the agent closes mandates with
 * it), and mandates issued through `POST /v1/mandates`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import { newAgentKey, type TestAgentKey } from './agent-signing.js';
import { agentWithPolicy, type Client, type TestContext } from './context.js';

/** An agent that can be issued mandates: its policy, and its registered P-256 key. */
export interface MandateAgent {
  agentId: string;
  policyId: string;
  /** The agent key (`akey_…`) bound as the mandates' `cnf`. */
  agentKeyId: string;
  key: TestAgentKey;
  /** The key's private JWK (`{kty: "EC", crv: "P-256", x, y, d}`): what the agent closes mandates with. */
  privateJwk: JWK;
}

/** A base64url SHA-256 (43 characters): an `open_checkout_hash`, from `seed` or at random. */
export const checkoutHash = (seed: string | Buffer = randomBytes(32)) => createHash('sha256').update(seed).digest('base64url');

export const DEFAULT_PAYEE = { id: 'merchant-1', name: 'Cat Store', website: 'https://cats.example' };

/** Registers a new P-256 key for `agentId` through the §19 route. */
export async function registerP256Key(admin: Client, agentId: string, key?: TestAgentKey): Promise<{ agentKeyId: string; key: TestAgentKey }> {
  const k = key ?? (await newAgentKey('ecdsa-p256-sha256'));
  const res = await admin.post(`/v1/agents/${agentId}/keys`, { jwk: k.publicJwk });
  if (res.status !== 201) throw new Error(`agent key not registered: ${res.status} ${res.text}`);
  return { agentKeyId: res.body.id, key: k };
}

/** A fresh policy (`policy` over the test defaults: USD, 10,000 single max), an agent bound to it, and its P-256 key. */
export async function mandateAgent(admin: Client, policy: Record<string, unknown> = {}): Promise<MandateAgent> {
  const { agentId, policyId } = await agentWithPolicy(admin, policy);
  const { agentKeyId, key } = await registerP256Key(admin, agentId);
  return { agentId, policyId, agentKeyId, key, privateJwk: key.privateJwk };
}

/** A `POST /v1/mandates` body for `agentId`: one payee, a random checkout hash, `overrides` over it. */
export const mandateBody = (agentId: string, overrides: Record<string, unknown> = {}) => ({
  agent_id: agentId,
  open_checkout_hash: checkoutHash(),
  payees: [DEFAULT_PAYEE],
  ...overrides,
});

/** Issues a mandate through the API (201 or it throws); the mandate object. */
export async function issueMandate(admin: Client, agentId: string, overrides: Record<string, unknown> = {}): Promise<any> {
  const res = await admin.post('/v1/mandates', mandateBody(agentId, overrides));
  if (res.status !== 201) throw new Error(`mandate not issued: ${res.status} ${res.text}`);
  return res.body;
}

/** An agent with its key, and a mandate issued to it: the whole setup of a verification test. */
export async function mandateFixture(
  admin: Client,
  opts: { policy?: Record<string, unknown>; mandate?: Record<string, unknown> } = {},
): Promise<MandateAgent & { mandate: any; openCheckoutHash: string }> {
  const agent = await mandateAgent(admin, opts.policy);
  const openCheckoutHash = (opts.mandate?.open_checkout_hash as string | undefined) ?? checkoutHash();
  const mandate = await issueMandate(admin, agent.agentId, { open_checkout_hash: openCheckoutHash, ...opts.mandate });
  return { ...agent, mandate, openCheckoutHash };
}

/** An agent-role API key of `agentId` (it may read and verify that agent's mandates). */
export async function agentApiKey(ctx: TestContext, admin: Client, agentId: string): Promise<Client> {
  const res = await admin.post('/v1/api-keys', { name: 'mandate agent', role: 'agent', agent_id: agentId });
  if (res.status !== 201) throw new Error(`agent API key not created: ${res.status} ${res.text}`);
  return ctx.client(res.body.key);
}

/** A reviewer API key of the admin's account and mode. */
export async function reviewerApiKey(ctx: TestContext, admin: Client): Promise<Client> {
  const res = await admin.post('/v1/api-keys', { name: 'mandate reviewer', role: 'reviewer' });
  if (res.status !== 201) throw new Error(`reviewer API key not created: ${res.status} ${res.text}`);
  return ctx.client(res.body.key);
}

/** The credential taken apart without any check: its header, payload and disclosures (decoded). */
export function decodeCredential(credential: string): { header: any; payload: any; disclosures: unknown[][]; raw: string[] } {
  const [jwt, ...rest] = credential.split('~');
  const raw = rest.filter((d) => d !== '');
  const [h, p] = jwt!.split('.');
  const json = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  return { header: json(h!), payload: json(p!), disclosures: raw.map((d) => json(d) as unknown[]), raw };
}

/**
 * The credential's `delegate_payload` resolved as a holder would (array elements `{"...": digest}`
 * and objects' `_sd` replaced by their disclosures), with the digests that found no disclosure and
 * the disclosures no digest used. Test-side only: the service's own parser is what verifies.
 */
export function resolveCredential(credential: string): { open: any; unresolved: string[]; unused: string[] } {
  const { payload, raw } = decodeCredential(credential);
  const byDigest = new Map(raw.map((d) => [createHash('sha256').update(d, 'ascii').digest('base64url'), JSON.parse(Buffer.from(d, 'base64url').toString('utf8')) as unknown[]]));
  const used = new Set<string>();
  const unresolved: string[] = [];
  const take = (digest: string) => {
    const d = byDigest.get(digest);
    if (!d) unresolved.push(digest);
    else used.add(digest);
    return d;
  };
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) {
      return node.flatMap((el) => {
        if (el && typeof el === 'object' && !Array.isArray(el) && Object.keys(el).length === 1 && typeof (el as Record<string, unknown>)['...'] === 'string') {
          const d = take((el as Record<string, string>)['...']!);
          return d ? [walk(d[1])] : [];
        }
        return [walk(el)];
      });
    }
    if (node && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) {
        if (k === '_sd' && Array.isArray(v)) {
          for (const digest of v as string[]) {
            const d = take(digest);
            if (d) out[d[1] as string] = walk(d[2]);
          }
        } else if (k !== '_sd_alg') out[k] = walk(v);
      }
      return out;
    }
    return node;
  };
  const resolved = walk(payload.delegate_payload) as unknown[];
  return { open: resolved[0], unresolved, unused: [...byDigest.keys()].filter((d) => !used.has(d)) };
}
