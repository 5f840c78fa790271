import { describe, expect, test } from 'vitest';
import type { Caller } from '../../src/kernel/caller.js';
import { hashApiKey } from '../../src/keys/api-key.js';
import { KeyCache } from '../../src/keys/key-cache.js';

/** A lookup whose answers the test releases, counting how often it was asked. */
function gatedLookup() {
  const waiting: Array<(caller: Caller) => void> = [];
  let calls = 0;
  return {
    /** Answers with the key and the number of this read, e.g. `gc_test_a#1`. */
    lookup: (rawKey: string) => {
      const read = (calls += 1);
      return new Promise<Caller>((resolve) => waiting.push(resolve)).then((c) => ({ ...c, keyId: `${rawKey}#${read}` }) as Caller);
    },
    release: (caller: Partial<Caller> = {}) => waiting.splice(0).forEach((resolve) => resolve(caller as Caller)),
    calls: () => calls,
  };
}

describe('KeyCache', () => {
  test('a burst of requests for a key not cached (or expired) reads it once, and all get that answer', async () => {
    const gate = gatedLookup();
    const cache = new KeyCache(gate.lookup, 60_000);
    const burst = Array.from({ length: 50 }, () => cache.authenticate('gc_test_a'));
    expect(gate.calls()).toBe(1);
    gate.release();
    const callers = await Promise.all(burst);
    expect(new Set(callers.map((c) => c.keyId))).toEqual(new Set(['gc_test_a#1']));
    // Cached now: no further read.
    expect((await cache.authenticate('gc_test_a')).keyId).toBe('gc_test_a#1');
    expect(gate.calls()).toBe(1);
  });

  test('a failed read is shared by the requests that waited for it, and never cached', async () => {
    let calls = 0;
    let fail!: (err: Error) => void;
    const cache = new KeyCache(() => {
      calls += 1;
      return calls === 1 ? new Promise<Caller>((_, reject) => (fail = reject)) : Promise.resolve({ keyId: 'key_new' } as Caller);
    });
    const burst = Array.from({ length: 5 }, () => cache.authenticate('gc_test_b'));
    fail(new Error('unknown key'));
    const settled = await Promise.allSettled(burst);
    expect(settled.every((s) => s.status === 'rejected')).toBe(true);
    expect(calls).toBe(1);
    expect((await cache.authenticate('gc_test_b')).keyId).toBe('key_new');
    expect(calls).toBe(2);
  });

  test('a key revoked while it was being read: that read is not kept, and the next request reads it again', async () => {
    const gate = gatedLookup();
    const cache = new KeyCache(gate.lookup, 60_000);
    const before = cache.authenticate('gc_test_c');
    cache.revoke(hashApiKey('gc_test_c'));
    // Asked after the revocation: not joined to the read that began before it.
    const after = cache.authenticate('gc_test_c');
    expect(gate.calls()).toBe(2);
    gate.release();
    expect((await before).keyId).toBe('gc_test_c#1');
    expect((await after).keyId).toBe('gc_test_c#2');
    // What is cached is the read begun after the revocation.
    expect((await cache.authenticate('gc_test_c')).keyId).toBe('gc_test_c#2');
    expect(gate.calls()).toBe(2);
  });
});
