import { z } from 'zod';
import { livemodeField } from '../kernel/view-fields.js';

export const dailyChecksSchema = z
  .object({
    date: z.iso.date().describe('A UTC day (YYYY-MM-DD)'),
    checks: z.number().int().nonnegative().describe('Billable checks that day'),
  })
  .describe("One UTC day's billable checks.");
export type DailyChecks = z.infer<typeof dailyChecksSchema>;

export const usageSchema = z
  .object({
    object: z.literal('usage'),
    month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/).describe('The month (YYYY-MM, UTC)'),
    plan: z.enum(['sandbox', 'starter', 'growth', 'enterprise']).describe("The account's plan"),
    checks: z.number().int().nonnegative().describe('Billable checks: HTTP 200 answers of POST /v1/authorize with a live key (always 0 in test mode)'),
    included: z.number().int().nonnegative().nullable().describe('Checks included in the plan; null = unlimited (test mode, sandbox)'),
    overage_checks: z.number().int().nonnegative().describe('Checks beyond the included ones'),
    overage_amount: z.string().regex(/^\d+\.\d+$/).describe('What the overage costs, in USD, as a decimal string'),
    livemode: livemodeField,
    daily: z.array(dailyChecksSchema).describe('Every UTC day of the month, in order (days to come count 0)'),
  })
  .describe("A month's billable checks and overage, for the calling key's account and mode.");
export type UsageView = z.infer<typeof usageSchema>;
