import { z } from 'zod';
import { cursorSchema } from '../db/pagination.js';
import { limitSchema } from '../kernel/schemas.js';

export const listApprovalsQuery = z.strictObject({
  status: z.enum(['pending', 'approved', 'denied', 'expired']).optional(),
  agent_id: z.string().min(1).max(100).optional(),
  limit: limitSchema(20, 100),
  cursor: cursorSchema().optional(),
});

export const resolveApprovalSchema = z.strictObject({
  note: z.string().max(1000).trim().optional(),
});
