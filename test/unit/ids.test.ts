import { describe, expect, it } from 'vitest';
import { newId, randomBase62, timeBase62 } from '../../src/kernel/ids.js';

describe('ids', () => {
  it('are the prefix and 24 base62 characters', () => {
    expect(newId('dec')).toMatch(/^dec_[0-9A-Za-z]{24}$/);
    expect(newId('we')).toMatch(/^we_[0-9A-Za-z]{24}$/);
  });

  it('begin with the creation millisecond, so later ids sort later (byte order, as PostgreSQL compares them)', () => {
    const times = [0, 61, 62, 3843, 1_000_000_000_000, Date.parse('2026-11-24T17:30:00.123Z'), Date.parse('2026-11-24T17:30:00.124Z'), 62 ** 8 - 1];
    const encoded = times.map(timeBase62);
    for (const e of encoded) expect(e).toMatch(/^[0-9A-Za-z]{8}$/);
    expect([...encoded].sort()).toEqual(encoded);
    expect(timeBase62(0)).toBe('00000000');
    expect(timeBase62(61)).toBe('0000000z');
    expect(timeBase62(62)).toBe('00000010');
    expect(timeBase62(62 ** 8 - 1)).toBe('zzzzzzzz');
    const before = timeBase62(Date.now());
    const id = newId('dec').slice(4);
    expect(id.slice(0, 8) >= before).toBe(true);
    expect(id.slice(0, 8) <= timeBase62(Date.now())).toBe(true);
  });

  it('keep 16 random characters after the time: no two ids of one millisecond collide', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => newId('dec')));
    expect(ids.size).toBe(20_000);
    const tails = [...ids].map((id) => id.slice(12));
    for (const t of tails.slice(0, 10)) expect(t).toMatch(/^[0-9A-Za-z]{16}$/);
    // Every base62 character turns up in the random part, in roughly equal measure.
    const counts = new Map<string, number>();
    for (const t of tails) for (const ch of t) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (tails.length * 16) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.1);
  });

  it('randomBase62 gives the length asked for', () => {
    expect(randomBase62(40)).toMatch(/^[0-9A-Za-z]{40}$/);
  });
});
