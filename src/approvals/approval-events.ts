import { z } from 'zod';
import { approvalEntrySchema, DECISION_REASON_CODES } from '../decisions/decision.view.js';
import { currencyField, idOf, instant } from '../kernel/view-fields.js';

/** The `data` of the events a hold's life emits (the event catalog, webhooks/event.view.ts, lists them). */

export const approvalCompletedDataSchema = z
  .object({
    decision_id: idOf('dec', 'The held decision'),
    outcome: z.enum(['approved', 'denied']).describe('How the hold ended (an expired hold is denied)'),
    reason_code: z.enum(DECISION_REASON_CODES).nullable().describe('Null when approved; `approval_expired`, `agent_frozen`, `agent_deactivated` or `policy_denied` when denied'),
    note: z.string().nullable().describe("The reviewer's note, if any"),
    resolved_by: z.string().describe('The resolving API key id, the operator named in the signal, or `system`'),
    resolved_at: instant('Resolution time'),
  })
  .describe('The `data` of `approval.completed`: how a held request was resolved.');
export type ApprovalCompletedData = z.infer<typeof approvalCompletedDataSchema>;

export const approvalEscalatedDataSchema = z
  .object({
    decision_id: idOf('dec', 'The held decision'),
    agent_id: idOf('agt', 'The agent that asked'),
    amount: z.number().int().positive().describe('Minor units'),
    currency: currencyField,
    vendor: z.string(),
    approvals_required: z.number().int().min(1).describe('The quorum of the hold'),
    approvals: z.array(approvalEntrySchema).describe('The approvals given so far'),
    escalated_at: instant('When it escalated'),
    expires_at: instant('When the hold expires').nullable(),
  })
  .describe('The `data` of `approval.escalated`: a hold still pending at its escalation time.');
export type ApprovalEscalatedData = z.infer<typeof approvalEscalatedDataSchema>;
