import { z } from 'zod';
import type { IdPrefix } from './ids.js';

/**
 * Field schemas shared by the response objects (the `*.view.ts` schemas). They describe what the
 * service sends, and the OpenAPI document is generated from them.
 */

/** An id with its prefix (`agt_…`): the pattern a client may rely on. */
export const idOf = (prefix: IdPrefix, description: string) =>
  z
    .string()
    .regex(new RegExp(`^${prefix}_[0-9A-Za-z]+$`))
    .describe(description);

/** An ISO 8601 instant in UTC, as `Date.toISOString()` writes it. */
export const instant = (description: string) => z.iso.datetime().describe(description);

export const livemodeField = z.boolean().describe('True for live-mode objects (`gc_live_` keys), false for test mode');

/** Minor units of the currency (cents for USD). */
export const minorUnits = (description: string) => z.number().int().nonnegative().describe(description);

export const currencyField = z.string().regex(/^[A-Z]{3}$/).describe('ISO 4217 code, upper case');

export const metadataField = z.record(z.string(), z.unknown()).describe('Key-value pairs set by the caller');
