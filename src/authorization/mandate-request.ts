import type { CompiledQuery } from 'kysely';
import type { DbOrTrx, MandateRef } from '../db/database.js';
import type { DecisionView } from '../decisions/decision.view.js';
import type { SpendState } from '../policies/evaluate.js';

/** Why a mandate presentation was denied before the policy was asked (DECISIONS §20 steps 6–7). */
export type MandateReasonCode = 'mandate_inactive' | 'mandate_mismatch' | 'mandate_unresolved' | 'mandate_constraint_failed';

export interface MandateRefusal {
  reason_code: MandateReasonCode;
  /** Human-readable; for a failing constraint it starts with the constraint's `type`. */
  reason: string;
  /** The AP2 receipt's `error` for it. */
  receiptError: 'invalid_mandate' | 'unresolved_constraint';
}

/**
 * A spend request that comes from an AP2 mandate presentation (DECISIONS §20): decided on the same
 * path as `POST /v1/authorize`, with three differences: it is decided under the agent's lock and the
 * mandate's row lock, in one transaction (never batched, never on the unlocked path); the mandate's
 * own rules are checked first; and no hold or duplicate step applies (the mandate is the human's
 * approval). The port is the authorization feature's: it knows nothing of SD-JWTs.
 */
export interface MandateRequest {
  /** Goes on `decisions.mandate` and the audit record's metadata. */
  ref: MandateRef;
  /** The digest of the closed mandate's signed bytes, sealed in the decision record's terms (DECISIONS §7). */
  closedDigest: string;
  /**
   * Under the agent's lock: locks the mandate's row, reads it again and checks steps 6–7 against
   * it as it stands. In the same statement, begun once the agent's lock was granted (so the latest
   * committed), the agent's spend in `periods`: one round trip for both. A refusal (undefined: on
   * to the policy), and that spend.
   */
  check(trx: DbOrTrx, agentId: string, now: Date, periods: { month: string; day: string }): Promise<{ refusal: MandateRefusal | undefined; spend: SpendState }>;
  /**
   * The mandate's side of the decision (its counters when approved, the presentation with its first
   * answer): statements written in the decision's own statement, after steps 5–8 decided `view`.
   */
  record(view: DecisionView): readonly (CompiledQuery | false | undefined)[];
}
