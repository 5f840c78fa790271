import { z } from 'zod';
import { MONTH_PATTERN } from './month.js';

export const usageQuery = z.strictObject({
  month: z.string().regex(MONTH_PATTERN, 'must be a month as YYYY-MM').optional(),
});
