import { z } from 'zod';

const isoTimestamp = z.iso.datetime({ offset: true }).or(z.iso.date()).transform((s) => new Date(s));

export const listAuditQuery = z.strictObject({
  agent_id: z.string().min(1).max(100).optional(),
  decision: z.enum(['approved', 'denied', 'held']).optional(),
  type: z.string().min(1).max(100).optional(),
  from: isoTimestamp.optional(),
  to: isoTimestamp.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().min(1).max(300).optional(),
});
export type ListAuditQuery = z.output<typeof listAuditQuery>;
