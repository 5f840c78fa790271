// `npm run bench -- --signed`: what a signed request (DECISIONS §19) costs the API. Every agent gets
// an agent-role API key and two agent keys, Ed25519 and P-256, registered through
// POST /v1/agents/:id/keys; the load generator signs each request itself (its own CPU, measured
// apart), and the unsigned baseline uses the same agent-role keys: admin keys are never checked, so
// they would be the wrong baseline.
import { generateKeyPairSync } from 'node:crypto';
import { createRequestSigner, type RequestSigner } from '../src/client/request-signer.js';
import { apiPost } from './harness.js';

export const SIGNED_VARIANTS = ['unsigned', 'ed25519', 'ecdsa-p256-sha256'] as const;
export type SignedVariant = (typeof SIGNED_VARIANTS)[number];

interface SignedAgent {
  agentId: string;
  apiKey: string;
  signers: Record<Exclude<SignedVariant, 'unsigned'>, RequestSigner>;
}

/** One request of the load: its body and headers, and its path when not the step's own (POST /v1/authorize). */
export type LoadRequest = () => { body: string; headers: Record<string, string>; path?: string };

async function registeredSigner(base: string, adminKey: string, agentId: string, alg: 'ed25519' | 'ecdsa-p256-sha256'): Promise<RequestSigner> {
  const { privateKey } = alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  // The service's longest lifetime: a slow step never sends a signature that expired in the queue.
  const signer = await createRequestSigner({ privateJwk: privateKey.export({ format: 'jwk' }), lifetimeSeconds: 300 });
  const key = await apiPost(base, adminKey, `/v1/agents/${agentId}/keys`, { jwk: signer.publicJwk, name: `bench ${alg}` });
  if (key.thumbprint !== signer.keyid) throw new Error(`agent key ${key.id}: thumbprint ${key.thumbprint}, signer's keyid ${signer.keyid}`);
  return signer;
}

/** An agent-role key and both agent keys for each agent. */
export async function signedAgents(base: string, adminKey: string, agentIds: string[]): Promise<SignedAgent[]> {
  const agents: SignedAgent[] = [];
  for (const agentId of agentIds) {
    const apiKey = (await apiPost(base, adminKey, '/v1/api-keys', { name: `bench ${agentId}`, role: 'agent', agent_id: agentId })).key as string;
    agents.push({
      agentId,
      apiKey,
      signers: { ed25519: await registeredSigner(base, adminKey, agentId, 'ed25519'), 'ecdsa-p256-sha256': await registeredSigner(base, adminKey, agentId, 'ecdsa-p256-sha256') },
    });
  }
  return agents;
}

/**
 * The requests of one variant: a random agent's body (`body(agentId)`, the bench's mix), sent with
 * that agent's key, signed (a fresh nonce each) unless `unsigned`.
 */
export function signedLoad(url: string, agents: SignedAgent[], variant: SignedVariant, body: (agentId: string) => string): LoadRequest {
  return () => {
    const agent = agents[Math.floor(Math.random() * agents.length)]!;
    const text = body(agent.agentId);
    const headers = { authorization: `Bearer ${agent.apiKey}`, 'content-type': 'application/json' };
    if (variant === 'unsigned') return { body: text, headers };
    return { body: text, headers: Object.fromEntries(agent.signers[variant].sign({ method: 'POST', url, headers, body: text })) };
  };
}
