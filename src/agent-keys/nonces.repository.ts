import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { KEY_USAGE_INTERVAL_MS } from '../keys/key-usage.js';

export type NonceClaim = 'claimed' | 'replayed' | 'revoked';

/** Claims sent together at most: one statement's JSON parameter stays small. */
const MAX_CLAIMS_PER_STATEMENT = 500;

interface PendingClaim {
  agentKeyId: string;
  thumbprint: string;
  nonce: string;
  expiresAt: Date;
  settle: (claim: NonceClaim) => void;
  fail: (err: unknown) => void;
}

/**
 * Step 9 of DECISIONS §19: records (thumbprint, nonce) until `expiresAt`, committed before the
 * request runs, by a statement that also re-reads the key, so a revocation committed by any
 * process counts for every request that has not got this far. The claims that arrive in one turn
 * of the event loop share that statement and its commit, as decisions share a batch: one round
 * trip and one WAL flush for many signed requests, not one each. No row back for a claim: the
 * nonce was seen, or the key is no longer active (told apart by a second read, on that rare path
 * only). Two claims of one (thumbprint, nonce) in one turn: the first is sent, the second replayed.
 */
class NonceClaims {
  private pending: PendingClaim[] = [];
  private scheduled = false;

  constructor(private readonly db: DbOrTrx) {}

  claim(agentKeyId: string, thumbprint: string, nonce: string, expiresAt: Date): Promise<NonceClaim> {
    return new Promise((settle, fail) => {
      this.pending.push({ agentKeyId, thumbprint, nonce, expiresAt, settle, fail });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.pending.length > 0) void this.send(this.pending.splice(0, MAX_CLAIMS_PER_STATEMENT));
  }

  private async send(batch: PendingClaim[]): Promise<void> {
    const first = new Map<string, PendingClaim>();
    const repeats: Array<[PendingClaim, PendingClaim]> = [];
    for (const c of batch) {
      const id = `${c.thumbprint} ${c.nonce}`;
      const earlier = first.get(id);
      if (earlier) repeats.push([c, earlier]);
      else first.set(id, c);
    }
    const sent = [...first.values()];
    const outcomes = new Map<PendingClaim, NonceClaim>();
    try {
      const rows = sent.map((c) => ({ key_id: c.agentKeyId, nonce: c.nonce, expires_at: c.expiresAt.toISOString() }));
      const claimed = await sql<{ thumbprint: string; nonce: string }>`
        INSERT INTO signature_nonces (thumbprint, nonce, agent_key_id, expires_at)
        SELECT k.thumbprint, v.nonce, k.id, v.expires_at
          FROM json_to_recordset(${JSON.stringify(rows)}::json) AS v(key_id text, nonce text, expires_at timestamptz)
          JOIN agent_keys k ON k.id = v.key_id AND k.status = 'active'
        ON CONFLICT (thumbprint, nonce) DO NOTHING
        RETURNING thumbprint, nonce`.execute(this.db);
      const won = new Set(claimed.rows.map((r) => `${r.thumbprint} ${r.nonce}`));
      const lost = sent.filter((c) => !won.has(`${c.thumbprint} ${c.nonce}`));
      const statuses = lost.length ? await keyStatuses(this.db, [...new Set(lost.map((c) => c.agentKeyId))]) : new Map<string, string>();
      for (const c of sent) outcomes.set(c, won.has(`${c.thumbprint} ${c.nonce}`) ? 'claimed' : statuses.get(c.agentKeyId) === 'active' ? 'replayed' : 'revoked');
    } catch (err) {
      for (const c of batch) c.fail(err);
      return;
    }
    for (const [c, o] of outcomes) c.settle(o);
    for (const [c, earlier] of repeats) {
      const o = outcomes.get(earlier)!;
      c.settle(o === 'claimed' ? 'replayed' : o);
    }
  }
}

const claimsOf = new WeakMap<DbOrTrx, NonceClaims>();

/** Step 9 for one request (see NonceClaims): 'claimed', or why not. */
export function claimNonce(db: DbOrTrx, agentKeyId: string, thumbprint: string, nonce: string, expiresAt: Date): Promise<NonceClaim> {
  let claims = claimsOf.get(db);
  if (!claims) claimsOf.set(db, (claims = new NonceClaims(db)));
  return claims.claim(agentKeyId, thumbprint, nonce, expiresAt);
}

async function keyStatuses(db: DbOrTrx, ids: string[]): Promise<Map<string, string>> {
  const rows = await db.selectFrom('agent_keys').select(['id', 'status']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** Nonces whose signatures can no longer verify (past `expires` + the skew): housekeeping deletes them. */
export async function purgeExpiredNonces(db: DbOrTrx, now: Date): Promise<number> {
  const result = await db.deleteFrom('signature_nonces').where('expires_at', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Sets an agent key's `last_used_at` unless it was set less than a minute before `at` (by any process). */
export async function touchAgentKey(db: DbOrTrx, id: string, at: Date): Promise<void> {
  await db
    .updateTable('agent_keys')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', new Date(at.getTime() - KEY_USAGE_INTERVAL_MS))]))
    .execute();
}
