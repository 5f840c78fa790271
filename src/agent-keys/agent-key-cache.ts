import type { Verifier } from 'http-message-sig';
import type { Db } from '../db/database.js';
import type { AgentKeyAlg } from '../kernel/caller.js';
import { KEY_CACHE_TTL_MS } from '../keys/key-cache.js';
import { verifierOf } from './verifiers.js';
import { DIRECTORY_LISTING_MAX_STALE_MS } from './agent-key-deps.js';

/** An active key of an agent, ready to verify with. */
export interface UsableKey {
  id: string;
  thumbprint: string;
  alg: AgentKeyAlg;
  verifier: Verifier;
  /**
   * A directory-bound key verifies only for its origin, while the directory's last listing holds it
   * and that listing is under DIRECTORY_LISTING_MAX_STALE_MS old (`listedUntil`, epoch ms).
   */
  directory: { origin: string; thumbprints: readonly string[]; listedUntil: number } | null;
}

export interface AgentScope {
  accountId: string;
  livemode: boolean;
}

const MAX_AGENTS = 10_000;

/**
 * Each agent's active keys, kept 5 s (another process's revocation is caught anyway by step 9's
 * statement; this process's drops the agent at once). A keyid not in the list reloads it once, so
 * a key registered in another process verifies at once; a miss is not cached. A key's verifier is
 * built once: a key's material never changes.
 */
export class AgentKeyCache {
  private readonly entries = new Map<string, { keys: readonly UsableKey[]; expires: number }>();
  private readonly verifiers = new Map<string, Verifier>();

  constructor(
    private readonly db: Db,
    private readonly ttlMs = KEY_CACHE_TTL_MS,
  ) {}

  /** The agent's active keys; `fresh` reads them again whatever the cache holds. */
  async activeKeys(scope: AgentScope, agentId: string, fresh = false): Promise<readonly UsableKey[]> {
    const hit = this.entries.get(agentId);
    const now = Date.now();
    if (hit && !fresh && hit.expires > now) return hit.keys;
    const keys = await this.load(scope, agentId);
    if (this.entries.size >= MAX_AGENTS) this.entries.clear();
    this.entries.set(agentId, { keys, expires: now + this.ttlMs });
    return keys;
  }

  /** The agent's keys changed in this process (created, revoked). */
  drop(agentId: string): void {
    this.entries.delete(agentId);
  }

  private async load(scope: AgentScope, agentId: string): Promise<UsableKey[]> {
    const rows = await this.db
      .selectFrom('agent_keys as k')
      .leftJoin('agent_key_directories as d', 'd.id', 'k.directory_id')
      .select(['k.id', 'k.thumbprint', 'k.alg', 'k.jwk', 'd.origin', 'd.thumbprints', 'd.fetched_at'])
      .where('k.agent_id', '=', agentId)
      .where('k.account_id', '=', scope.accountId)
      .where('k.livemode', '=', scope.livemode)
      .where('k.status', '=', 'active')
      .orderBy('k.created_at')
      .execute();
    if (this.verifiers.size >= MAX_AGENTS) this.verifiers.clear();
    return rows.map((r) => {
      let verifier = this.verifiers.get(r.id);
      if (!verifier) {
        verifier = verifierOf(r.alg, typeof r.jwk === 'string' ? (JSON.parse(r.jwk) as Record<string, string>) : r.jwk);
        this.verifiers.set(r.id, verifier);
      }
      return {
        id: r.id,
        thumbprint: r.thumbprint,
        alg: r.alg,
        verifier,
        directory:
          r.origin === null ? null : { origin: r.origin, thumbprints: r.thumbprints ?? [], listedUntil: r.fetched_at === null ? 0 : new Date(r.fetched_at).getTime() + DIRECTORY_LISTING_MAX_STALE_MS },
      };
    });
  }
}
