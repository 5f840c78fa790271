import { z } from 'zod';

export const captureSchema = z.strictObject({
  /** What the rail charged, in minor units; at most the approved amount. Absent: all of it. */
  amount: z.number().int('must be an integer number of minor units').positive().max(Number.MAX_SAFE_INTEGER).optional(),
});
export type CaptureInput = z.output<typeof captureSchema>;

/** A void takes no parameters; an empty object (or no body) is accepted. */
export const voidSchema = z.strictObject({});
