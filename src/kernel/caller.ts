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
}

export const ADMIN: readonly Role[] = ['admin'];
export const STAFF: readonly Role[] = ['admin', 'reviewer'];
export const ANY_ROLE: readonly Role[] = ['admin', 'reviewer', 'agent'];

export function requireRole(caller: Caller, roles: readonly Role[]): void {
  if (!roles.includes(caller.role)) {
    throw new AppError('forbidden', `This API key's role (${caller.role}) may not perform this operation.`);
  }
}

export const actorOf = (caller: Caller) => ({ type: 'api_key' as const, id: caller.keyId });
