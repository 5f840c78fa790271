import { z } from 'zod';
import type { DecisionsTable, Selectable } from '../db/database.js';
import { listOf } from '../db/pagination.js';
import { currencyField, idOf, instant, livemodeField, metadataField, minorUnits } from '../kernel/view-fields.js';
import { requestSignatureSchema, requestSignatureView } from './signature.view.js';

export type DecisionRow = Selectable<DecisionsTable>;

/** Every `reason_code` a decision can carry: the rule that decided it, or how its hold ended. */
export const DECISION_REASON_CODES = [
  'policy_denied',
  'budget_exceeded',
  'velocity_exceeded',
  'approval_required',
  'duplicate_suspected',
  'approval_expired',
  'agent_frozen',
  'agent_deactivated',
  'mandate_inactive',
  'mandate_mismatch',
  'mandate_unresolved',
  'mandate_constraint_failed',
] as const;
export type DecisionReasonCode = (typeof DECISION_REASON_CODES)[number];

export const captureSchema = z
  .object({
    status: z.enum(['uncaptured', 'captured', 'voided', 'expired']).describe('`uncaptured` until the rail captures it; `expired` when not captured in time'),
    captured_amount: minorUnits('What was captured; null until captured').nullable(),
    captured_at: instant('When it was captured').nullable(),
    capture_before: instant('The deadline after which an uncaptured approval expires; null for approvals older than captures (they never expire)').nullable(),
    metadata: metadataField.nullable().describe("What the rail sent with its capture (its own reference, e.g. an x402 settlement's transaction); null until captured"),
    over_capture_amount: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Only when a rail that asks first captured more than was approved for its card authorization: by how much (minor units); `captured_amount` includes it'),
    signature: requestSignatureSchema.nullable().describe('The signature the capture request was made under; null when unsigned, not captured yet, or captured by a rail'),
  })
  .describe('What the rail did with an approval.');
export type CaptureView = z.infer<typeof captureSchema>;

export const mandateRefSchema = z
  .object({
    id: idOf('mdt', 'The mandate presented'),
    reference: z.string().describe('base64url SHA-256 of the closed mandate\'s JWT: the receipt\'s `reference`'),
    transaction_id: z.string().describe('The closed mandate\'s `transaction_id`'),
  })
  .describe('The AP2 mandate presentation that made a decision.');

export const RAIL_TYPES = ['stripe_issuing'] as const;

export const railRefSchema = z
  .object({
    type: z.enum(RAIL_TYPES).describe('The rail: `stripe_issuing` (a card authorization of Stripe Issuing)'),
    connection_id: idOf('rail', 'The rail connection that asked'),
    authorization_id: z.string().describe("The rail's own id of the request (Stripe Issuing: the authorization, `iauth_…`)"),
  })
  .describe('The rail request a decision answered (docs/rails/stripe-issuing.md).');
export type RailRef = z.infer<typeof railRefSchema>;

export const approvalEntrySchema = z
  .object({
    api_key_id: idOf('key', 'The approving key').nullable().describe("The approving key; null for an operator's signal"),
    name: z.string().describe("The key's name (or the operator's) when it approved"),
    note: z.string().nullable().describe("The reviewer's note"),
    at: instant('When it approved'),
  })
  .describe("One reviewer's approval of a hold.");

export const decisionSchema = z
  .object({
    object: z.literal('decision'),
    decision_id: idOf('dec', 'Decision id'),
    decision: z.enum(['approved', 'denied', 'held']).describe('The outcome; a held decision later reads `approved` or `denied` once resolved'),
    status: z.enum(['approved', 'denied', 'pending', 'expired']).describe('`pending` while held; `expired` when the hold timed out (denied)'),
    authorization_token: z
      .string()
      .regex(/^gca_/)
      .optional()
      .describe('Only when approved: the signed token (`gca_` + compact JWS) to pass to the rail'),
    reason: z.string().nullable().optional().describe('Only when denied or held: the human-readable cause'),
    reason_code: z.enum(DECISION_REASON_CODES).nullable().describe('Machine-readable cause; null when approved'),
    policy_applied: idOf('pol', 'The evaluated policy').nullable().describe('The evaluated policy; null when the agent had none bound'),
    agent_id: idOf('agt', 'The agent that asked'),
    amount: minorUnits('Requested amount'),
    currency: currencyField,
    vendor: z.string().describe('The vendor as sent'),
    category: z.string().nullable().describe('The category (lower case), if sent'),
    metadata: metadataField,
    expires_at: instant('Only for held decisions: when the hold expires').optional(),
    approvals_required: z.number().int().min(1).optional().describe('Only for held decisions: the distinct approvals the hold needs (its quorum)'),
    approvals: z.array(approvalEntrySchema).optional().describe('Only for held decisions: the approvals given so far'),
    requested_by: idOf('key', 'The API key that requested it')
      .nullable()
      .optional()
      .describe('Only for held decisions: the API key that requested the spend (in live mode it cannot approve it); null for holds from before this was kept and for those a rail asked for'),
    resolved_at: instant('When a hold was resolved').nullable(),
    capture: captureSchema.nullable().describe('What the rail did with an approval; null for denied and pending decisions'),
    rail: railRefSchema.nullable().describe('The rail request that made this decision (a card swipe); null for decisions asked for through the API'),
    increment_of: idOf('dec', 'The first decision of the card authorization this one increased')
      .nullable()
      .describe("A decision a rail asked for the increase of a card authorization (Stripe's incremental authorization): the authorization's first decision; null otherwise"),
    signature: requestSignatureSchema.nullable().describe('The signature the request was made under (DECISIONS §19); null when unsigned'),
    mandate: mandateRefSchema.nullable().describe('The AP2 mandate presentation that made this decision (DECISIONS §20); null for decisions asked for otherwise'),
    livemode: livemodeField,
    timestamp: instant('Server time of the decision'),
  })
  .describe('A spend decision: approved (with a `gca_` token), denied, or held for a reviewer.');
export type DecisionView = z.infer<typeof decisionSchema>;

/** Held requests as the approvals list shows them: the decision object itself. */
export const approvalSchema = decisionSchema.describe('A held request: its decision object (`status` `pending` until a reviewer or the timeout resolves it).');
export const approvalListSchema = listOf(approvalSchema, 'held requests');

/** Event payloads carry the decision without its token. */
export const decisionEventDataSchema = decisionSchema
  .omit({ authorization_token: true })
  .describe('The decision object without `authorization_token`: the `data` of `authorize.*` and `authorization.*` events.');
export type DecisionEventData = z.infer<typeof decisionEventDataSchema>;

/**
 * The decision object (docs/api.md, "The decision object"). `authorization_token` is present only
 * when approved, `reason` only when denied or held, `expires_at`, `approvals_required`, `approvals`
 * and `requested_by` only for held requests.
 */
export function toDecisionView(row: DecisionRow): DecisionView {
  const approved = row.decision === 'approved';
  return {
    object: 'decision',
    decision_id: row.id,
    decision: row.decision,
    status: row.status,
    ...(approved && row.authorization_token ? { authorization_token: row.authorization_token } : {}),
    ...(!approved ? { reason: row.reason } : {}),
    reason_code: row.reason_code as DecisionReasonCode | null,
    policy_applied: row.policy_id,
    agent_id: row.agent_id,
    amount: row.amount,
    currency: row.currency,
    vendor: row.vendor,
    category: row.category,
    metadata: row.metadata,
    ...(row.expires_at ? { expires_at: row.expires_at.toISOString() } : {}),
    // Held requests only: the quorum fixed when held, and the approvals given so far (docs/api.md,
    // "Approval chains"). Items rebuilt field by field: jsonb keeps its own key order, the API
    // shows the documented one.
    ...(row.expires_at
      ? {
          approvals_required: row.approvals_required ?? 1,
          approvals: (row.approvals ?? []).map((a) => ({ api_key_id: a.api_key_id, name: a.name, note: a.note, at: a.at })),
          requested_by: row.requested_by ?? null,
        }
      : {}),
    resolved_at: row.resolved_at?.toISOString() ?? null,
    capture: captureView(row),
    rail: railView(row),
    increment_of: row.increment_of ?? null,
    signature: requestSignatureView(row.signature),
    mandate: row.mandate ? { id: row.mandate.id, reference: row.mandate.reference, transaction_id: row.mandate.transaction_id } : null,
    livemode: row.livemode,
    timestamp: row.created_at.toISOString(),
  };
}

/**
 * What the rail did with an approval (docs/api.md, "Capture and void"); null for denied and pending
 * decisions. `captured_amount`, `metadata` and `signature` are null until captured; `capture_before` is the
 * deadline after which an uncaptured approval expires (null for approvals older than captures,
 * which never expire); `over_capture_amount` only when a card rail captured more than it was
 * approved.
 */
export function captureView(row: DecisionRow): CaptureView | null {
  if (row.decision !== 'approved' || !row.capture_status) return null;
  return {
    status: row.capture_status,
    captured_amount: row.captured_amount === null ? null : Number(row.captured_amount),
    captured_at: row.captured_at?.toISOString() ?? null,
    capture_before: row.capture_expires_at?.toISOString() ?? null,
    metadata: row.capture_status === 'captured' ? (row.capture_metadata ?? {}) : null,
    ...(row.capture_status === 'captured' && row.over_capture_amount ? { over_capture_amount: Number(row.over_capture_amount) } : {}),
    signature: requestSignatureView(row.capture_signature),
  };
}

/** The rail request that made the decision, or null. */
export function railView(row: DecisionRow): RailRef | null {
  if (!row.rail_type || !row.rail_connection_id || !row.rail_authorization_id) return null;
  return { type: row.rail_type, connection_id: row.rail_connection_id, authorization_id: row.rail_authorization_id };
}

/** The `data` of a decision's events, from its row. */
export function decisionEventData(row: DecisionRow): DecisionEventData {
  const { authorization_token: _omit, ...rest } = toDecisionView(row);
  return rest;
}
