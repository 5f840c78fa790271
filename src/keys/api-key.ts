import { randomBase62, sha256Hex } from '../kernel/ids.js';

export const KEY_RANDOM_LENGTH = 40;
const KEY_PATTERN = /^gc_(test|live)_[0-9A-Za-z]{32,128}$/;

export function generateApiKey(livemode: boolean): { raw: string; hash: string; prefix: string } {
  const raw = `gc_${livemode ? 'live' : 'test'}_${randomBase62(KEY_RANDOM_LENGTH)}`;
  return { raw, hash: hashApiKey(raw), prefix: displayPrefix(raw) };
}

export const hashApiKey = (raw: string): string => sha256Hex(raw);

/** Enough to recognise a key in a list, never enough to use it. */
export const displayPrefix = (raw: string): string => `${raw.slice(0, 12)}…${raw.slice(-4)}`;

/** The mode a key's prefix names, or undefined when the string is not shaped like a key. */
export function parseApiKeyMode(raw: string): boolean | undefined {
  const m = KEY_PATTERN.exec(raw);
  return m ? m[1] === 'live' : undefined;
}
