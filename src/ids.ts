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

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(24)}`;

export const sha256Hex = (input: string): string => createHash('sha256').update(input, 'utf8').digest('hex');
