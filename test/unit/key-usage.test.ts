import { describe, expect, it } from 'vitest';
import { KEY_USAGE_INTERVAL_MS, KeyUsageRecorder } from '../../src/keys/key-usage.js';

describe('KeyUsageRecorder', () => {
  it('writes a key\'s use at most once a minute, each key on its own clock', () => {
    let now = 1_000_000;
    const writes: Array<[string, number]> = [];
    const recorder = new KeyUsageRecorder(async (id, at) => void writes.push([id, at.getTime()]), { now: () => now });
    recorder.record('key_a');
    now += 30_000;
    recorder.record('key_a');
    recorder.record('key_b');
    now += KEY_USAGE_INTERVAL_MS - 30_000 - 1;
    recorder.record('key_a');
    now += 2;
    recorder.record('key_a');
    expect(writes).toEqual([
      ['key_a', 1_000_000],
      ['key_b', 1_030_000],
      ['key_a', 1_000_000 + KEY_USAGE_INTERVAL_MS + 1],
    ]);
  });

  it('never makes the caller wait or fail: a write still in flight or failing is reported, not thrown', async () => {
    const errors: unknown[] = [];
    let fail!: () => void;
    // The write does not settle until the test says so: record() returning at all, with no promise
    // to await, is what shows the caller never waits for it (no clock involved).
    const recorder = new KeyUsageRecorder(() => new Promise((_, reject) => (fail = () => reject(new Error('database down')))), { onError: (e) => errors.push(e) });
    expect(recorder.record('key_a')).toBeUndefined();
    expect(errors).toEqual([]);
    fail();
    await new Promise((r) => setTimeout(r, 0));
    expect(errors.map((e) => (e as Error).message)).toEqual(['database down']);
  });
});
