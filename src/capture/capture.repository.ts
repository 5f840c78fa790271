import type { CaptureStatus, DbOrTrx } from '../db/database.js';
import type { RequestSignature } from '../kernel/caller.js';
import type { DecisionRow } from '../decisions/decision.view.js';

/**
 * Moves an uncaptured approval to its final capture status. Conditional on it still being
 * uncaptured, so of a capture, a void and an expiry of one decision exactly one changes it even
 * without the row lock the callers also hold. Returns the row as written, or undefined.
 */
export async function settleCapture(
  db: DbOrTrx,
  id: string,
  to: Exclude<CaptureStatus, 'uncaptured'>,
  now: Date,
  capturedAmount?: number,
  captureMetadata?: Record<string, unknown>,
  /** The signature of the request that captured it (DECISIONS §19); kept only with a capture. */
  signature?: RequestSignature | undefined,
): Promise<DecisionRow | undefined> {
  return db
    .updateTable('decisions')
    .set((eb) => ({
      capture_status: to,
      captured_amount: to === 'captured' ? capturedAmount! : null,
      captured_at: to === 'captured' ? now : null,
      capture_metadata: to === 'captured' ? JSON.stringify(captureMetadata ?? {}) : null,
      capture_signature: to === 'captured' && signature ? JSON.stringify(signature) : null,
      capture_resolved_at: now,
      // A capture uses the token up; after a void or an expiry it answers by the capture status.
      ...(to === 'captured' ? { token_consumed_at: eb.fn.coalesce('token_consumed_at', eb.val(now)) } : {}),
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('capture_status', '=', 'uncaptured')
    .returningAll()
    .executeTakeFirst();
}

/** Uncaptured approvals whose capture deadline is at or before `now`, the longest overdue first, across accounts. */
export async function overdueUncapturedIds(db: DbOrTrx, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('decisions')
    .select('id')
    .where('capture_status', '=', 'uncaptured')
    .where('capture_expires_at', '<=', now)
    .orderBy('capture_expires_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Sets what a captured (or rail-voided) approval counts: `capturedAmount` > 0 keeps it captured at
 * that amount (`overCapture` of it above what was approved for its card authorization), null voids
 * it. For rails that report the final amount after the capture.
 */
export async function setCapturedAmount(db: DbOrTrx, id: string, capturedAmount: number | null, overCapture: number | null, now: Date): Promise<DecisionRow> {
  return db
    .updateTable('decisions')
    .set((eb) => ({
      capture_status: capturedAmount === null ? 'voided' : 'captured',
      captured_amount: capturedAmount,
      over_capture_amount: capturedAmount === null ? null : overCapture,
      captured_at: capturedAmount === null ? null : eb.fn.coalesce('captured_at', eb.val(now)),
      capture_resolved_at: now,
      updated_at: now,
    }))
    .where('id', '=', id)
    .where('capture_status', 'in', ['captured', 'voided'])
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Replaces a captured approval's capture metadata (the caller merged it, holding the decision's row lock). */
export async function setCaptureMetadata(db: DbOrTrx, id: string, metadata: Record<string, unknown>, now: Date): Promise<DecisionRow> {
  return db
    .updateTable('decisions')
    .set({ capture_metadata: JSON.stringify(metadata), updated_at: now })
    .where('id', '=', id)
    .where('capture_status', '=', 'captured')
    .returningAll()
    .executeTakeFirstOrThrow();
}
