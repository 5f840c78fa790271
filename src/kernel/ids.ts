import { createHash, randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes are taken from a pool refilled 4 KiB at a time (as node:crypto's randomUUID does):
 * one call into the generator serves many ids instead of one call per id.
 */
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++]!;
}

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix = 'acct' | 'key' | 'agt' | 'pol' | 'aud' | 'dec' | 'evt' | 'we' | 'del' | 'vlt' | 'req' | 'whsec' | 'rail' | 'akey' | 'akd' | 'mdt';

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
