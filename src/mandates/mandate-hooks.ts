/**
 * What takes an agent's mandates with it (DECISIONS §20): revoking the agent key that is their
 * `cnf` (§19), or deactivating the agent. Freezing does not: a frozen agent's presentations fail
 * verification, and unfreezing gives them back. Run inside the caller's transaction.
 *
 * Imports the database layer and the audit log only: the agent and agent-key features reach these
 * through ports composed by the app, never through an import of the mandates feature.
 */
import type { DbOrTrx } from '../db/database.js';
import { appendAudit, type AuditInput } from '../audit/audit.repository.js';
import { revokeMandatesOfAgentRows, revokeMandatesOfKeyRows, type RevokedMandate } from './mandates.repository.js';

export type MandateActor = AuditInput['actor'];
/** Why a mandate was revoked, in its `mandate.revoked` record; absent when it was revoked itself. */
export type RevocationReason = 'agent_key_revoked' | 'agent_deactivated';

/** One `mandate.revoked` record per mandate revoked (the first revocation only: later ones change nothing). */
export async function auditRevoked(trx: DbOrTrx, rows: readonly RevokedMandate[], actor: MandateActor, opts: { reason?: RevocationReason; signedBy?: string | null } = {}): Promise<void> {
  for (const row of rows) {
    await appendAudit(trx, {
      accountId: row.account_id,
      livemode: row.livemode,
      type: 'mandate.revoked',
      actor,
      agentId: row.agent_id,
      reason: opts.reason ?? null,
      metadata: { mandate_id: row.id, agent_key_id: row.agent_key_id, ...(opts.reason ? { reason: opts.reason } : {}) },
      signedBy: opts.signedBy ?? null,
    });
  }
}

/** The agent key `keyId` was revoked: its live mandates are revoked with it. */
export async function revokeMandatesOfKey(trx: DbOrTrx, keyId: string, actor: MandateActor, at: Date, signedBy: string | null = null): Promise<RevokedMandate[]> {
  const rows = await revokeMandatesOfKeyRows(trx, keyId, at);
  await auditRevoked(trx, rows, actor, { reason: 'agent_key_revoked', signedBy });
  return rows;
}

/** The agent was deactivated: its live mandates are revoked. */
export async function revokeMandatesOfAgent(trx: DbOrTrx, agentId: string, actor: MandateActor, at: Date): Promise<RevokedMandate[]> {
  const rows = await revokeMandatesOfAgentRows(trx, agentId, at);
  await auditRevoked(trx, rows, actor, { reason: 'agent_deactivated' });
  return rows;
}

/**
 * The agent-transition hook of mandates (composed with the others by the app): deactivation
 * revokes, freezing does not. `now` is the clock of the revocation times.
 */
export const mandateAgentHooks = (now: () => Date) => ({
  onAgentStopped: async (trx: DbOrTrx, agent: { id: string }, reason: 'agent_frozen' | 'agent_deactivated', actor: MandateActor): Promise<void> => {
    if (reason === 'agent_deactivated') await revokeMandatesOfAgent(trx, agent.id, actor, now());
  },
});
