import { z } from 'zod';

/** The `data` of the event the audit log emits (the event catalog, webhooks/event.view.ts, lists it). */
export const auditCheckpointDataSchema = z
  .object({
    checkpoint: z.string().describe('The signed checkpoint, as `GET /v1/audit-logs/verify` returns it: keep it, and pass it back as `?checkpoint=`'),
    sequence: z.number().int().nonnegative().describe('The sequence of the chain head it names'),
    head_hash: z.string().regex(/^[0-9a-f]{64}$/).describe('That record\'s hash'),
    day: z.iso.date().describe('The day (UTC) the checkpoint was sent for'),
  })
  .describe('The `data` of `audit.checkpoint`: the day\'s signed checkpoint of this account and mode\'s audit chain.');
export type AuditCheckpointData = z.infer<typeof auditCheckpointDataSchema>;
