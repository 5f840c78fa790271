import { z } from 'zod';
import { cursorSchema, SEQUENCE_CURSOR_PATTERN } from '../db/pagination.js';
import { limitSchema } from '../kernel/schemas.js';
import { CHECKPOINT_MAX_LENGTH } from './audit-checkpoint.js';

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

export const verifyAuditQuery = z.strictObject({
  checkpoint: z
    .string()
    .min(1)
    .max(CHECKPOINT_MAX_LENGTH)
    .optional()
    .describe('A checkpoint an earlier verify returned: the answer says whether the record it names is still there (`checkpoint_check`)'),
});
