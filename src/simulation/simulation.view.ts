import { z } from 'zod';
import { DECISION_REASON_CODES } from '../decisions/decision.view.js';
import { currencyField, idOf, instant, metadataField } from '../kernel/view-fields.js';
import type { SimResult } from './simulate.js';

const outcome = z.enum(['approved', 'denied', 'held']);
const count = (description: string) => z.number().int().nonnegative().describe(description);

export const policySimulationSchema = z
  .object({
    object: z.literal('policy_simulation'),
    policy_id: idOf('pol', 'The saved policy simulated').nullable().describe('The saved policy simulated; null for an unsaved policy body'),
    summary: z
      .object({
        approved: count('Requests that would be approved'),
        denied: count('Requests that would be denied'),
        held: count('Requests that would be held'),
        changed: count('Replayed requests whose outcome would differ from the recorded one'),
      })
      .describe('Counts over all results'),
    results: z
      .array(
        z
          .object({
            decision_id: idOf('dec', 'The recorded decision replayed (replays only)').optional(),
            request: z
              .object({
                agent_id: idOf('agt', 'The agent'),
                amount: z.number().int().positive().describe('Minor units'),
                currency: currencyField,
                vendor: z.string(),
                category: z.string().nullable(),
                metadata: metadataField,
              })
              .describe('The request simulated'),
            would_be: z
              .object({ decision: outcome, reason_code: z.enum(DECISION_REASON_CODES).nullable() })
              .describe('The outcome under the simulated policy'),
            hold: z
              .object({
                approvals_required: z.number().int().min(1).describe('The approvals it would need'),
                escalates_at: instant('When it would escalate').nullable().describe('When it would escalate; null = never'),
              })
              .optional()
              .describe('Only when it would be held'),
            actual: z
              .object({ decision: outcome, reason_code: z.enum(DECISION_REASON_CODES).nullable() })
              .optional()
              .describe('The outcome first recorded (replays only)'),
          })
          .describe('One simulated request'),
      )
      .describe('One result per request, in request order'),
  })
  .describe('What a policy would have decided: no budget, audit, usage or event changes.');
export type PolicySimulationView = z.infer<typeof policySimulationSchema>;

export const toSimulationView = (policyId: string | null, run: { summary: PolicySimulationView['summary']; results: SimResult[] }): PolicySimulationView => ({
  object: 'policy_simulation',
  policy_id: policyId,
  summary: run.summary,
  results: run.results as PolicySimulationView['results'],
});
