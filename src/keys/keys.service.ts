import { actorOf, ADMIN, requireRole, type Caller } from '../kernel/caller.js';
import type { Db, Role } from '../db/database.js';
import { listPage } from '../db/pagination.js';
import { appendAudit } from '../audit/audit.repository.js';
import { AppError, conflict, forbidden, invalid, notFound } from '../kernel/errors.js';
import { newId } from '../kernel/ids.js';
import { findAgentInScope } from '../agents/agents.repository.js';
import { generateApiKey, hashApiKey, parseApiKeyMode } from './api-key.js';
import { toApiKeyView, type ApiKeyView, type CreatedApiKeyView } from './api-key.view.js';
import { findActiveKeyByHash, findKey, insertApiKey, listKeys, revokeKey} from './keys.repository.js';

export { toApiKeyView, type ApiKeyView } from './api-key.view.js';

/** Resolves a raw bearer key to its caller, or throws 401 for any key that is not usable. */
export async function authenticate(db: Db, rawKey: string): Promise<Caller> {
  if (parseApiKeyMode(rawKey) === undefined) {
    throw new AppError('unauthorized', 'Invalid API key provided.');
  }
  const row = await findActiveKeyByHash(db, hashApiKey(rawKey));
  if (!row) throw new AppError('unauthorized', 'Invalid API key provided.');
  return {
    accountId: row.account_id,
    livemode: row.livemode,
    keyId: row.id,
    role: row.role,
    agentId: row.agent_id,
    plan: row.plan,
    rateLimit: row.rate_limit,
    ...(row.role === 'agent' ? { signedRequestsRequired: row.signed_requests_required } : {}),
  };
}

export interface CreateKeyInput {
  name: string;
  mode?: 'test' | 'live' | undefined;
  role: Role;
  agent_id?: string | undefined;
}

/** Creates a key; the raw key is in the result once and never stored. */
export async function createApiKey(db: Db, caller: Caller, input: CreateKeyInput): Promise<CreatedApiKeyView> {
  requireRole(caller, ADMIN);
  const livemode = input.mode ? input.mode === 'live' : caller.livemode;
  // A leaked test key must not be a way into live mode: live keys come from a live key or the CLI.
  if (livemode !== caller.livemode) {
    throw forbidden(`A ${caller.livemode ? 'live' : 'test'} key can only create ${caller.livemode ? 'live' : 'test'} keys.`);
  }
  if (livemode && caller.plan === 'sandbox') {
    throw forbidden('Accounts on the sandbox plan cannot create live keys.');
  }
  if (input.role === 'agent' && !input.agent_id) throw invalid('Agent keys need an agent_id.', 'agent_id');
  if (input.role !== 'agent' && input.agent_id) {
    throw invalid('Only keys with role agent are bound to an agent.', 'agent_id');
  }
  return db.transaction().execute(async (trx) => {
    if (input.agent_id) {
      // Locked, so a deactivation committing meanwhile is seen: no key is minted after it.
      const agent = await findAgentInScope(trx, caller.accountId, livemode, input.agent_id, true);
      if (!agent) throw notFound('agent', 'agent_id');
      // Deactivation is terminal: like every other write on the agent, a new key for it is refused.
      if (agent.status === 'deactivated') throw conflict('The agent is deactivated; no API key can be created for it.', 'agent_id');
    }
    const key = generateApiKey(livemode);
    const row = await insertApiKey(trx, {
      id: newId('key'),
      account_id: caller.accountId,
      livemode,
      name: input.name,
      role: input.role,
      agent_id: input.agent_id ?? null,
      key_hash: key.hash,
      key_prefix: key.prefix,
      created_at: new Date(),
      // Its descent (DECISIONS §8): it counts as the minting key when approving that key's holds.
      created_by: caller.keyId,
      created_via: 'api',
    });
    await appendAudit(trx, {
      accountId: caller.accountId,
      livemode,
      type: 'api_key.created',
      actor: actorOf(caller),
      agentId: row.agent_id,
      metadata: { api_key_id: row.id, role: row.role, name: row.name },
    });
    return { ...toApiKeyView(row), key: key.raw };
  });
}

export async function listApiKeys(db: Db, caller: Caller, limit: number, cursor?: string) {
  requireRole(caller, ADMIN);
  return listPage({ limit, cursor }, (n, after) => listKeys(db, caller.accountId, caller.livemode, n, after), toApiKeyView);
}

/** The calling key itself, for any role: a client (the MCP server) learns its mode, role and agent. */
export async function getOwnApiKey(db: Db, caller: Caller): Promise<ApiKeyView> {
  const row = await findKey(db, caller.accountId, caller.livemode, caller.keyId);
  if (!row) throw new AppError('unauthorized', 'Invalid API key provided.');
  return toApiKeyView(row);
}

/** Revoking is repeatable; only the first revocation is audited. Caches are told after commit. */
export async function revokeApiKey(db: Db, caller: Caller, id: string, onRevoked?: (hash: string) => void) {
  requireRole(caller, ADMIN);
  const row = await db.transaction().execute(async (trx) => {
    const existing = await findKey(trx, caller.accountId, caller.livemode, id);
    if (!existing) throw notFound('API key', 'id');
    if (existing.revoked_at) return existing;
    const revoked = (await revokeKey(trx, id)) ?? existing;
    await appendAudit(trx, {
      accountId: caller.accountId,
      livemode: caller.livemode,
      type: 'api_key.revoked',
      actor: actorOf(caller),
      agentId: revoked.agent_id,
      metadata: { api_key_id: revoked.id },
    });
    return revoked;
  });
  onRevoked?.(row.key_hash);
  return toApiKeyView(row);
}
