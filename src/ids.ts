import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = 'acct' | 'key' | 'agt' | 'pol' | 'aud' | 'dec' | 'evt' | 'we' | 'del' | 'vlt' | 'req' | 'whsec';

const TIME_DIGITS = 8;

/**
 * Milliseconds since the epoch as 8 base62 digits, fixed width: base62's alphabet is in ASCII order,
 * so these strings sort as the times do (until the year 8888).
 */
export function timeBase62(ms: number): string {
  let out = '';
  for (let n = Math.floor(ms), i = 0; i < TIME_DIGITS; i++, n = Math.floor(n / 62)) out = BASE62[n % 62] + out;
  return out;
}

/**
 * `prefix_` and 24 base62 characters: the creation millisecond (8) and 16 random ones (95 bits).
 * Ids made later sort later, so a table's primary-key index takes new rows at its right edge, where
 * its pages are already in memory, instead of anywhere in an index that grows past the cache.
 */
export const newId = (prefix: IdPrefix): string => `${prefix}_${timeBase62(Date.now())}${randomBase62(24 - TIME_DIGITS)}`;

export const sha256Hex = (input: string): string => createHash('sha256').update(input, 'utf8').digest('hex');
