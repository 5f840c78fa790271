import { AppError } from './errors.js';

/** An account's plan: what it pays and how much it may do. */
export type Plan = 'sandbox' | 'starter' | 'growth' | 'enterprise';
/** What an API key may do: everything, review holds, or ask for one agent's spending. */
export type Role = 'admin' | 'reviewer' | 'agent';

/** Who is calling: resolved from the bearer key once per request. */
export interface Caller {
  accountId: string;
  livemode: boolean;
  keyId: string;
  role: Role;
  /** Set only for agent-role keys: the one agent the key acts for. */
  agentId: string | null;
  plan: Plan;
  rateLimit: number | null;
  /** For agent-role keys: the agent's policy requires signed requests (DECISIONS §19); cached with the caller. */
  signedRequestsRequired?: boolean;
  /** Set when the request carried a verified RFC 9421 signature (DECISIONS §19). */
  signature?: RequestSignature;
}

export type AgentKeyAlg = 'ed25519' | 'ecdsa-p256-sha256';

/**
 * A verified request signature, as decisions, captures and webhooks show it (DECISIONS §19,
 * "Recorded"): `created` is the signature's own parameter, Unix seconds.
 */
export interface RequestSignature {
  agent_key_id: string;
  keyid: string;
  alg: AgentKeyAlg;
  signature_agent: string | null;
  created: number;
  nonce: string;
}

/** The thumbprint audit records carry as `signed_by`: the key that signed this request, if any. */
export const signedByOf = (caller: Pick<Caller, 'signature'> | undefined): string | null => caller?.signature?.keyid ?? null;

export const ADMIN: readonly Role[] = ['admin'];
export const STAFF: readonly Role[] = ['admin', 'reviewer'];
export const ANY_ROLE: readonly Role[] = ['admin', 'reviewer', 'agent'];

export function requireRole(caller: Caller, roles: readonly Role[]): void {
  if (!roles.includes(caller.role)) {
    throw new AppError('forbidden', `This API key's role (${caller.role}) may not perform this operation.`);
  }
}

export const actorOf = (caller: Caller) => ({ type: 'api_key' as const, id: caller.keyId });
