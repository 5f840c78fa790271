import { z } from 'zod';

/** The zod primitives request schemas share: ids, money, metadata, trimmed text, query integers. */

/**
 * Text PostgreSQL can hold (storable-text.ts; the HTTP input guard checks every body): the
 * pattern says "no NUL"; surrogates without their pair, refused too, are left to the description
 * (a pattern naming surrogates is one JSON Schema tools cannot generate from).
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000]*$';
const STORABLE_TEXT = 'no NUL characters or unpaired UTF-16 surrogates';
const metadataKey = () => z.string().min(1).max(40).meta({ pattern: STORABLE_TEXT_PATTERN, description: `A metadata key: ${STORABLE_TEXT}` });
const metadataText = () => z.string().max(500).meta({ pattern: STORABLE_TEXT_PATTERN, description: STORABLE_TEXT });

export const metadataSchema = z
  .record(metadataKey(), z.union([metadataText(), z.number(), z.boolean()]))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

/** On update a key set to null is removed; the 50-key limit applies to the merged result. */
export const metadataPatchSchema = z
  .record(metadataKey(), z.union([metadataText(), z.number(), z.boolean(), z.null()]))
  .refine((m) => Object.values(m).filter((v) => v !== null).length <= 50, 'at most 50 keys')
  .refine((m) => Object.keys(m).length <= 100, 'at most 100 keys per update');

/** What String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator), as a pattern's class. */
export const TRIMMED_CHARS = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** Text kept trimmed, 1–`max` characters: for the document, not only whitespace (and, as everywhere, no NUL). */
export const trimmedText = (max: number) =>
  z.string().max(max).trim().min(1).meta({ pattern: `^[^\\u0000]*[^${TRIMMED_CHARS}\\u0000][^\\u0000]*$` });

/**
 * A whole number in a query string, written in plain digits. Number() coercion would read an empty
 * value as 0 and accept " 5", "1e1" or "0x10", none of which the document's `integer` allows.
 */
export function queryInteger(min: number, max: number): z.ZodType<number, unknown>;
export function queryInteger(min: number, max: number, def: number): z.ZodType<number, unknown>;
export function queryInteger(min: number, max: number, def?: number) {
  const integer = z.number({ error: (issue) => (issue.code === 'invalid_type' ? 'must be a whole number' : undefined) }).int().min(min).max(max);
  // The default sits inside the pipe so the document keeps it; the meta gives the preprocess step,
  // which has no JSON Schema of its own, the integer it accepts.
  return z
    .preprocess((v) => (typeof v === 'string' && /^[0-9]{1,15}$/.test(v) ? Number(v) : v), def === undefined ? integer : integer.default(def))
    .meta({ type: 'integer', minimum: min, maximum: max });
}

export const limitSchema = (def: number, max: number) => queryInteger(1, max, def);

export const moneySchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const idSchema = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`), `must be an id starting with ${prefix}_`);
