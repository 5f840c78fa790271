import { z } from 'zod';
import { cursorSchema, SEQUENCE_CURSOR_PATTERN } from '../db/pagination.js';
import { limitSchema } from '../kernel/schemas.js';

const isoTimestamp = z.iso.datetime({ offset: true }).or(z.iso.date()).transform((s) => new Date(s));

export const listAuditQuery = z.strictObject({
  agent_id: z.string().min(1).max(100).optional(),
  decision: z.enum(['approved', 'denied', 'held']).optional(),
  type: z.string().min(1).max(100).optional(),
  from: isoTimestamp.optional(),
  to: isoTimestamp.optional(),
  limit: limitSchema(50, 100),
  cursor: cursorSchema(SEQUENCE_CURSOR_PATTERN).optional(),
});
export type ListAuditQuery = z.output<typeof listAuditQuery>;
