import { actorOf, ADMIN, requireRole, signedByOf, type Caller } from '../kernel/caller.js';
import type { DbOrTrx } from '../db/database.js';
import { listPage, type Page } from '../db/pagination.js';
import type { Scope } from '../db/scope.js';
import { appendAudit } from '../audit/audit.repository.js';
import { conflict, invalid, notFound } from '../kernel/errors.js';
import { newId } from '../kernel/ids.js';
import { findAgentInScope } from '../agents/agents.repository.js';
import { MAX_ACTIVE_AGENT_KEYS, type AgentKeyDeps } from './agent-key-deps.js';
import { agentKeyView, type AgentKeyView } from './agent-key.view.js';
import type { CreateAgentKeyInput, ListAgentKeysQuery } from './agent-keys.schemas.js';
import { countActiveAgentKeys, findAgentKey, insertAgentKey, listAgentKeys as listAgentKeyRows, revokeAgentKey as revokeAgentKeyRow, thumbprintActive } from './agent-keys.repository.js';
import { DirectoryError, directoryOrigin, fetchDirectory, type DirectoryListing } from './key-directory.js';
import { upsertDirectory } from './key-directory.repository.js';
import { JwkError, parseAgentJwk, type AgentJwk } from './jwk.js';

export { agentKeyView, type AgentKeyView } from './agent-key.view.js';

const scopeOf = (caller: Caller): Scope => ({ accountId: caller.accountId, livemode: caller.livemode });
const clockOf = (deps: AgentKeyDeps) => deps.now ?? (() => new Date());

const isActiveThumbprintClash = (err: unknown) => {
  const e = err as { code?: unknown; constraint?: unknown } | undefined;
  return e?.code === '23505' && (e.constraint === undefined || e.constraint === 'agent_keys_active_thumbprint');
};
const thumbprintTaken = () => conflict('A key with this thumbprint is already active on an agent of this account and mode; revoke it there first.', 'jwk');

/** The agent a caller may read keys of: agent keys their own agent only, as for the agent itself (another's → 404). */
async function readableAgent(db: DbOrTrx, caller: Caller, agentId: string) {
  if (caller.role === 'agent' && caller.agentId !== agentId) throw notFound('agent', 'id');
  const agent = await findAgentInScope(db, caller.accountId, caller.livemode, agentId);
  if (!agent) throw notFound('agent', 'id');
  return agent;
}

/**
 * What refuses a new key for an agent: unknown (404), deactivated (409, terminal like every write
 * on it), already holding 10 active keys, or the thumbprint active elsewhere in the account and
 * mode (409). Checked before a directory is fetched, and again with the agent's row locked, so
 * concurrent creations for one agent are counted one after the other.
 */
async function checkRegistrable(db: DbOrTrx, scope: Scope, agentId: string, thumbprint: string, lock: boolean): Promise<void> {
  const agent = await findAgentInScope(db, scope.accountId, scope.livemode, agentId, lock);
  if (!agent) throw notFound('agent', 'id');
  if (agent.status === 'deactivated') throw conflict('The agent is deactivated; no key can be registered for it.', 'id');
  if ((await countActiveAgentKeys(db, agentId)) >= MAX_ACTIVE_AGENT_KEYS) {
    throw conflict(`The agent already has ${MAX_ACTIVE_AGENT_KEYS} active keys, the most it may have; revoke one first.`);
  }
  if (await thumbprintActive(db, scope, thumbprint)) throw thumbprintTaken();
}

async function parseJwk(input: unknown, livemode: boolean): Promise<AgentJwk> {
  try {
    return await parseAgentJwk(input, { livemode });
  } catch (err) {
    if (err instanceof JwkError) throw invalid(`The jwk is not accepted: ${err.message}.`, err.param);
    throw err;
  }
}

const directoryRefused = (rule: string) => invalid(`The key directory is not usable: ${rule}.`, 'directory_url');

/** Fetches the directory now: it must list this key (DECISIONS §19); any failure is 400 `directory_url`. */
async function listingWithKey(deps: AgentKeyDeps, origin: string, livemode: boolean, thumbprint: string): Promise<DirectoryListing> {
  let listing: DirectoryListing;
  try {
    listing = await fetchDirectory(origin, { ...deps.directories, livemode });
  } catch (err) {
    if (err instanceof DirectoryError) throw directoryRefused(err.message);
    throw err;
  }
  if (!listing.thumbprints.includes(thumbprint)) throw directoryRefused(`does not list this key (an entry whose kid is its thumbprint, ${thumbprint})`);
  return listing;
}

/** Registers an agent's public key (admin), tied to a key directory when `directory_url` is given. */
export async function createAgentKey(deps: AgentKeyDeps, caller: Caller, agentId: string, input: CreateAgentKeyInput): Promise<AgentKeyView> {
  requireRole(caller, ADMIN);
  const scope = scopeOf(caller);
  const key = await parseJwk(input.jwk, caller.livemode);
  let origin: string | null = null;
  if (input.directory_url !== undefined) {
    try {
      origin = directoryOrigin(input.directory_url);
    } catch (err) {
      if (err instanceof DirectoryError) throw invalid(`The directory_url is not allowed: ${err.message}.`, 'directory_url');
      throw err;
    }
  }
  // No outbound request for a key that would be refused anyway.
  await checkRegistrable(deps.db, scope, agentId, key.thumbprint, false);
  const listing = origin ? await listingWithKey(deps, origin, caller.livemode, key.thumbprint) : undefined;
  const now = clockOf(deps)();
  let row;
  try {
    row = await deps.db.transaction().execute(async (trx) => {
      await checkRegistrable(trx, scope, agentId, key.thumbprint, true);
      const directoryId = origin && listing ? await upsertDirectory(trx, scope, origin, listing, now) : null;
      const inserted = await insertAgentKey(
        trx,
        {
          id: newId('akey'),
          account_id: scope.accountId,
          livemode: scope.livemode,
          agent_id: agentId,
          name: input.name ?? null,
          alg: key.alg,
          jwk: key.jwk,
          thumbprint: key.thumbprint,
          directory_id: directoryId,
          created_at: now,
        },
        origin,
      );
      await appendAudit(trx, {
        accountId: scope.accountId,
        livemode: scope.livemode,
        type: 'agent_key.created',
        actor: actorOf(caller),
        agentId,
        metadata: { agent_key_id: inserted.id, thumbprint: inserted.thumbprint, alg: inserted.alg, name: inserted.name, directory_url: origin },
        signedBy: signedByOf(caller),
      });
      return inserted;
    });
  } catch (err) {
    // Two agents registering one thumbprint at once: the partial unique index lets one win.
    if (isActiveThumbprintClash(err)) throw thumbprintTaken();
    throw err;
  }
  deps.onKeysChanged(agentId);
  return agentKeyView(row);
}

/** An agent's keys, newest first (admin, reviewer, the agent's own agent keys). */
export async function listAgentKeys(deps: AgentKeyDeps, caller: Caller, agentId: string, q: ListAgentKeysQuery): Promise<Page<AgentKeyView>> {
  await readableAgent(deps.db, caller, agentId);
  return listPage(q, (limit, after) => listAgentKeyRows(deps.db, scopeOf(caller), agentId, q.status, limit, after), agentKeyView);
}

export async function getAgentKey(deps: AgentKeyDeps, caller: Caller, agentId: string, keyId: string): Promise<AgentKeyView> {
  await readableAgent(deps.db, caller, agentId);
  const row = await findAgentKey(deps.db, scopeOf(caller), agentId, keyId);
  if (!row) throw notFound('agent key', 'key_id');
  return agentKeyView(row);
}

/**
 * Revokes a key (admin): it never verifies again. Repeatable; only the first revocation is
 * audited. A deactivated agent's keys can be revoked too (it frees their thumbprints).
 */
export async function revokeAgentKey(deps: AgentKeyDeps, caller: Caller, agentId: string, keyId: string): Promise<AgentKeyView> {
  requireRole(caller, ADMIN);
  const scope = scopeOf(caller);
  const { row, changed } = await deps.db.transaction().execute(async (trx) => {
    const existing = await findAgentKey(trx, scope, agentId, keyId, true);
    if (!existing) throw notFound('agent key', 'key_id');
    if (existing.status === 'revoked') return { row: existing, changed: false };
    const revoked = await revokeAgentKeyRow(trx, existing.id, clockOf(deps)());
    if (!revoked) return { row: existing, changed: false };
    await appendAudit(trx, {
      accountId: scope.accountId,
      livemode: scope.livemode,
      type: 'agent_key.revoked',
      actor: actorOf(caller),
      agentId,
      metadata: { agent_key_id: revoked.id, thumbprint: revoked.thumbprint },
      signedBy: signedByOf(caller),
    });
    await deps.onKeyRevoked?.(trx, revoked, caller);
    return { row: { ...revoked, directory_url: existing.directory_url }, changed: true };
  });
  if (changed) deps.onKeysChanged(agentId);
  return agentKeyView(row);
}
