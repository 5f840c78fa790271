import { z } from 'zod';
import { metadataSchema } from '../kernel/schemas.js';

export const captureSchema = z.strictObject({
  /** What the rail charged, in minor units; at most the approved amount. Absent: all of it. */
  amount: z.number().int('must be an integer number of minor units').positive().max(Number.MAX_SAFE_INTEGER).optional(),
  /** The rail's own reference for the charge, kept with the capture (as on authorize). */
  metadata: metadataSchema.optional(),
});
export type CaptureInput = z.output<typeof captureSchema>;

/** `PATCH /v1/decisions/:id/capture`: references the rail adds to a capture after the fact (e.g. a settlement's transaction). */
export const captureUpdateSchema = z.strictObject({
  metadata: metadataSchema,
});
export type CaptureUpdateInput = z.output<typeof captureUpdateSchema>;

/** A void takes no parameters; an empty object (or no body) is accepted. */
export const voidSchema = z.strictObject({});
