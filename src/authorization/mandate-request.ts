import type { DbOrTrx, MandateRef } from '../db/database.js';
import type { DecisionView } from '../decisions/decision.view.js';

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
  /**
   * Under the agent's lock: locks the mandate's row, reads it again and checks steps 6–7 against
   * it as it stands. A refusal, or undefined to go on to the policy.
   */
  check(trx: DbOrTrx, now: Date): Promise<MandateRefusal | undefined>;
  /** Written last in the same transaction: the mandate's counters (approved only) and the presentation with its first answer. */
  record(trx: DbOrTrx, view: DecisionView): Promise<void>;
}
