import type { DecisionsTable, Selectable } from '../db/database.js';

export type DecisionRow = Selectable<DecisionsTable>;

/**
 * The decision object of SPEC 2.2 plus DECISIONS §3. `authorization_token` is present only when
 * approved, `reason` only when denied or held, `expires_at`, `approvals_required` and `approvals`
 * only for held requests.
 */
export function toDecisionView(row: DecisionRow) {
  const approved = row.decision === 'approved';
  return {
    object: 'decision' as const,
    decision_id: row.id,
    decision: row.decision,
    status: row.status,
    ...(approved && row.authorization_token ? { authorization_token: row.authorization_token } : {}),
    ...(!approved ? { reason: row.reason } : {}),
    reason_code: row.reason_code,
    policy_applied: row.policy_id,
    agent_id: row.agent_id,
    amount: row.amount,
    currency: row.currency,
    vendor: row.vendor,
    category: row.category,
    metadata: row.metadata,
    ...(row.expires_at ? { expires_at: row.expires_at.toISOString() } : {}),
    // Held requests only: the quorum fixed when held, and the approvals given so far (DECISIONS §16).
    // Items rebuilt field by field: jsonb keeps its own key order, the API shows the documented one.
    ...(row.expires_at
      ? { approvals_required: row.approvals_required ?? 1, approvals: (row.approvals ?? []).map((a) => ({ api_key_id: a.api_key_id, name: a.name, note: a.note, at: a.at })) }
      : {}),
    resolved_at: row.resolved_at?.toISOString() ?? null,
    capture: captureView(row),
    livemode: row.livemode,
    timestamp: row.created_at.toISOString(),
  };
}
export type DecisionView = ReturnType<typeof toDecisionView>;

/**
 * What the rail did with an approval (DECISIONS §15); null for denied and pending decisions.
 * `captured_amount` is null until captured; `capture_before` is the deadline after which an
 * uncaptured approval expires (null for approvals older than captures, which never expire).
 */
export function captureView(row: DecisionRow) {
  if (row.decision !== 'approved' || !row.capture_status) return null;
  return {
    status: row.capture_status,
    captured_amount: row.captured_amount === null ? null : Number(row.captured_amount),
    captured_at: row.captured_at?.toISOString() ?? null,
    capture_before: row.capture_expires_at?.toISOString() ?? null,
  };
}

/** Event payloads carry the decision without its token. */
export function decisionEventData(row: DecisionRow): Record<string, unknown> {
  const { authorization_token: _omit, ...rest } = toDecisionView(row) as DecisionView & { authorization_token?: string };
  return rest;
}
