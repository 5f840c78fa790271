import { z } from 'zod';
import { listOf } from '../db/pagination.js';
import { idOf, instant, livemodeField, metadataField } from '../kernel/view-fields.js';
import type { AgentRow } from './agents.repository.js';

export const agentSchema = z
  .object({
    id: idOf('agt', 'Agent id'),
    object: z.literal('agent'),
    name: z.string().describe('Display name'),
    agent_type: z.string().nullable().describe('Free-form kind of agent (set on the quick-start surface); null when not given'),
    policy_id: idOf('pol', 'The bound policy').nullable().describe('The bound policy; null until one is bound (quick-start agents before their vault)'),
    status: z.enum(['active', 'frozen', 'deactivated']).describe('`active` may obtain authorizations; `frozen` and `deactivated` (terminal) may not'),
    kyc_status: z.enum(['pending', 'verified', 'rejected']).describe('Identity check of the human owner; `rejected` makes authorize deny'),
    metadata: metadataField,
    livemode: livemodeField,
    created_at: instant('Registration time'),
    updated_at: instant('Last change'),
  })
  .describe('An agent: a spender that asks before spending, bound to one policy.');
export type AgentView = z.infer<typeof agentSchema>;

export const agentListSchema = listOf(agentSchema, 'agents');

export function toAgentView(row: AgentRow): AgentView {
  return {
    id: row.id,
    object: 'agent',
    name: row.name,
    agent_type: row.agent_type,
    policy_id: row.policy_id,
    status: row.status,
    kyc_status: row.kyc_status,
    metadata: row.metadata,
    livemode: row.livemode,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
