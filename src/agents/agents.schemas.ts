import { z } from 'zod';
import { cursorSchema } from '../db/pagination.js';
import { limitSchema, metadataPatchSchema, metadataSchema, trimmedText } from '../kernel/schemas.js';

export const createAgentSchema = z.strictObject({
  name: trimmedText(200),
  policy_id: z.string().min(1).max(100),
  metadata: metadataSchema.optional(),
});

export const updateAgentSchema = z.strictObject({
  name: trimmedText(200).optional(),
  policy_id: z.string().min(1).max(100).optional(),
  metadata: metadataPatchSchema.optional(),
  kyc_status: z.enum(['pending', 'verified', 'rejected']).optional(),
  status: z.enum(['active', 'frozen']).optional(),
});

export const listAgentsQuery = z.strictObject({
  limit: limitSchema(20, 100),
  cursor: cursorSchema().optional(),
  status: z.enum(['active', 'frozen', 'deactivated']).optional(),
  policy_id: z.string().min(1).max(100).optional(),
});

export type CreateAgentInput = z.output<typeof createAgentSchema>;
export type UpdateAgentInput = z.output<typeof updateAgentSchema>;
