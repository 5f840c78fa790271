/**
 * Reading a decision (with a long poll) and verifying an approval's token online: what a rail or
 * an agent asks after the decision was made.
 */
import { appendAudit, decisionAuditFields } from '../audit/audit.repository.js';
import { findAgentInScope } from '../agents/agents.repository.js';
import { consumeToken, findDecisionInScope } from '../decisions/decisions.repository.js';
import { toDecisionView, type DecisionRow, type DecisionView } from '../decisions/decision.view.js';
import { actorOf, requireRole, ADMIN, ANY_ROLE, type Caller } from '../kernel/caller.js';
import { notFound } from '../kernel/errors.js';
import { verifyAuthorizationToken, type VerifyResult } from '../tokens/authorization-token.js';
import type { AuthorizationDeps } from './authorization.deps.js';

/**
 * The current state of a decision; with `waitSeconds`, long-polls while it is pending. The wait
 * reads nothing: it is woken by the resolution's commit notification (or its deadline), then reads
 * once, so a waiter costs two reads however long it waits.
 */
export async function getDecision(
  deps: Pick<AuthorizationDeps, 'db' | 'waiter'>,
  caller: Caller,
  id: string,
  waitSeconds = 0,
  signal?: AbortSignal,
): Promise<DecisionView> {
  requireRole(caller, ANY_ROLE);
  const deadline = Date.now() + waitSeconds * 1000;
  const watch = waitSeconds > 0 ? deps.waiter.watch(id) : undefined;
  try {
    for (let last = false; ; ) {
      const row = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, id);
      // An agent key reads only its own agent's decisions; anything else is as if it did not exist.
      if (!row || (caller.role === 'agent' && row.agent_id !== caller.agentId)) throw notFound('decision', 'id');
      if (last || row.status !== 'pending' || !watch || Date.now() >= deadline || signal?.aborted) return toDecisionView(row);
      last = (await watch.next(deadline, signal)) === 'deadline';
      // Nobody is left to read the answer.
      if (signal?.aborted) return toDecisionView(row);
    }
  } finally {
    watch?.close();
  }
}

/**
 * For rails that prefer a call to offline verification. Beyond the offline checks: a token of
 * another account or mode is not valid for the caller, and a token stops verifying once its agent
 * is frozen or deactivated (it verifies again if the agent is unfrozen). After the approval is
 * captured, voided or expired, or once consumed, it never verifies again. With `consume` (admin
 * keys), a valid answer also marks the token consumed: of concurrent consumers exactly one is told
 * valid.
 */
export async function verifyToken(deps: Pick<AuthorizationDeps, 'db' | 'signer' | 'now'>, caller: Caller, token: string, consume = false): Promise<VerifyResult> {
  requireRole(caller, consume ? ADMIN : ANY_ROLE);
  const now = deps.now?.() ?? new Date();
  const result = await verifyAuthorizationToken(deps.signer, token, now);
  if (!result.valid) return result;
  const fail = (error: 'wrong_audience' | 'unknown_token' | 'agent_inactive' | 'consumed' | 'voided' | 'expired'): VerifyResult => ({ valid: false, claims: null, error });
  // Tokens minted before `aud` existed have none; the scoped lookup below still confines them.
  if ((result.claims.aud !== undefined && result.claims.aud !== caller.accountId) || result.claims.livemode !== caller.livemode) return fail('wrong_audience');
  const decision = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, result.claims.jti);
  if (!decision || decision.decision !== 'approved') return fail('unknown_token');
  const agent = await findAgentInScope(deps.db, caller.accountId, caller.livemode, decision.agent_id);
  if (!agent || agent.status !== 'active') return fail('agent_inactive');
  const spent = spentTokenError(decision, now);
  if (spent) return fail(spent);
  if (consume) {
    const consumed = await deps.db.transaction().execute(async (trx) => {
      const row = await consumeToken(trx, decision.id, now);
      if (row) {
        await appendAudit(trx, {
          ...decisionAuditFields(row),
          type: 'authorization_token.consumed',
          actor: actorOf(caller),
        });
      }
      return row;
    });
    if (!consumed) {
      // Someone else consumed, captured, voided or expired it in the meantime.
      const current = await findDecisionInScope(deps.db, caller.accountId, caller.livemode, decision.id);
      return fail((current && spentTokenError(current, now)) || 'consumed');
    }
  }
  return result;
}

/** Why an approval's token no longer verifies, if it does not: used once, captured, voided or expired. */
function spentTokenError(row: DecisionRow, now: Date): 'consumed' | 'voided' | 'expired' | undefined {
  if (row.capture_status === 'voided') return 'voided';
  // Past its capture deadline an approval is expired, also in the minutes before the sweep records it.
  if (row.capture_status === 'expired' || (row.capture_status === 'uncaptured' && row.capture_expires_at !== null && row.capture_expires_at <= now)) return 'expired';
  if (row.capture_status === 'captured' || row.token_consumed_at !== null) return 'consumed';
  return undefined;
}
