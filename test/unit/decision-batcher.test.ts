/**
 * DecisionBatcher, the queue of group commit (docs/operations.md, "Group commit"), with a `run` of
 * the test's own that finishes when the test says so: when a batch closes (full, or its first
 * request has lingered), how many run at once, the order each key's requests reach `run` in, and
 * which caller is given which result. No database.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { DecisionBatcher, type Settled } from '../../src/authorization/decision-batcher.js';
import type { AuthorizeBatchSettings } from '../../src/kernel/config.js';

interface Item {
  key: string;
  id: string;
}

/** One call of `run`, waiting for the test to end it. */
interface Call {
  members: Item[];
  ids: string[];
  resolve(results: Settled<string>[]): void;
  reject(error: unknown): void;
}

type Outcome = { value: string } | { error: unknown };

const valueOf = (id: string) => `result of ${id}`;
const allOk = (members: Item[]): Settled<string>[] => members.map((m) => ({ ok: true, value: valueOf(m.id) }));

/** A batcher whose `run` records each call and leaves it running until the test ends it. */
function harness(settings: Partial<AuthorizeBatchSettings> = {}) {
  const calls: Call[] = [];
  const running = new Set<Call>();
  let mostRunning = 0;
  const batcher = new DecisionBatcher<Item, string>({ size: 64, lingerMs: 0, inFlight: 2, ...settings }, (members) => {
    return new Promise<Settled<string>[]>((resolve, reject) => {
      const call: Call = {
        members,
        ids: members.map((m) => m.id),
        resolve: (results) => {
          running.delete(call);
          resolve(results);
        },
        reject: (error) => {
          running.delete(call);
          reject(error);
        },
      };
      calls.push(call);
      running.add(call);
      mostRunning = Math.max(mostRunning, running.size);
    });
  });
  const outcomes = new Map<string, Outcome>();
  const promises = new Map<string, Promise<string>>();
  let n = 0;
  const submit = (key: string, id = `${key}${++n}`) => {
    const p = batcher.submit(key, { key, id });
    promises.set(id, p);
    p.then(
      (value) => outcomes.set(id, { value }),
      (error: unknown) => outcomes.set(id, { error }),
    );
    return id;
  };
  const succeed = (call: Call) => call.resolve(allOk(call.members));
  return { batcher, calls, running, submit, succeed, outcomes, promises, mostRunning: () => mostRunning };
}

/** Runs what is due now (the linger-0 turn included) and every promise continuation after it. */
const flush = () => vi.advanceTimersByTimeAsync(0);

afterEach(() => {
  vi.useRealTimers();
});

describe('when a batch closes', () => {
  test('a full batch starts at once, without waiting for the linger; no empty batch runs when the linger would have ended', async () => {
    vi.useFakeTimers();
    const h = harness({ size: 3, lingerMs: 50 });
    const a = h.submit('a');
    const b = h.submit('b');
    await flush();
    expect(h.calls).toHaveLength(0);
    const c = h.submit('c');
    // In the same synchronous step as the request that filled it.
    expect(h.calls.map((x) => x.ids)).toEqual([[a, b, c]]);
    await vi.advanceTimersByTimeAsync(100);
    expect(h.calls).toHaveLength(1);
    h.succeed(h.calls[0]!);
    await flush();
    expect(Object.fromEntries(h.outcomes)).toEqual({ [a]: { value: valueOf(a) }, [b]: { value: valueOf(b) }, [c]: { value: valueOf(c) } });
  });

  test('with lingerMs 0, every request submitted in one synchronous tick lands in one batch, run on the next turn of the event loop', async () => {
    vi.useFakeTimers();
    const h = harness({ size: 64, lingerMs: 0, inFlight: 2 });
    const ids = ['a', 'b', 'a', 'c', 'b', 'a', 'c', 'c', 'a', 'b'].map((k) => h.submit(k));
    expect(h.calls).toHaveLength(0);
    await Promise.resolve();
    expect(h.calls).toHaveLength(0);
    await flush();
    expect(h.calls.map((x) => x.ids)).toEqual([ids]);
    expect(h.batcher.waiting).toBe(0);
    // A request after that turn is the next batch's, not added to the running one.
    const late = h.submit('d');
    await flush();
    expect(h.calls.map((x) => x.ids)).toEqual([ids, [late]]);
  });

  test('with lingerMs 1, a batch closes 1 ms after its first request, with every request that arrived in that millisecond', async () => {
    vi.useFakeTimers();
    const h = harness({ size: 64, lingerMs: 1, inFlight: 2 });
    const a = h.submit('a');
    await flush();
    // Not on the next turn, as linger 0 would.
    expect(h.calls).toHaveLength(0);
    const b = h.submit('b');
    await vi.advanceTimersByTimeAsync(0.5);
    expect(h.calls).toHaveLength(0);
    const c = h.submit('c');
    await vi.advanceTimersByTimeAsync(0.5);
    expect(h.calls.map((x) => x.ids)).toEqual([[a, b, c]]);
    const d = h.submit('d');
    await flush();
    expect(h.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.calls.map((x) => x.ids)).toEqual([[a, b, c], [d]]);
  });

  test('the linger counts from the first request of a batch, not from its last', async () => {
    vi.useFakeTimers();
    const h = harness({ size: 64, lingerMs: 10, inFlight: 2 });
    const a = h.submit('a');
    await vi.advanceTimersByTimeAsync(6);
    const b = h.submit('b');
    await vi.advanceTimersByTimeAsync(3);
    expect(h.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.calls.map((x) => x.ids)).toEqual([[a, b]]);
    await vi.advanceTimersByTimeAsync(20);
    expect(h.calls).toHaveLength(1);
  });

  test('a batch that was kept waiting by a full set of running batches starts as soon as one ends, without lingering again', async () => {
    vi.useFakeTimers();
    const h = harness({ size: 64, lingerMs: 10, inFlight: 1 });
    const a = h.submit('a');
    await vi.advanceTimersByTimeAsync(10);
    const b = h.submit('b');
    await vi.advanceTimersByTimeAsync(15);
    expect(h.calls.map((x) => x.ids)).toEqual([[a]]);
    h.succeed(h.calls[0]!);
    await flush();
    expect(h.calls.map((x) => x.ids)).toEqual([[a], [b]]);
  });
  test('a request that arrived while every slot was taken closes its batch when its own linger ends, counted from its arrival', async () => {
    vi.useFakeTimers();
    const h = harness({ size: 64, lingerMs: 10, inFlight: 1 });
    const a = h.submit('a');
    await vi.advanceTimersByTimeAsync(10);
    expect(h.calls.map((x) => x.ids)).toEqual([[a]]);
    const b = h.submit('b');
    await vi.advanceTimersByTimeAsync(4);
    h.succeed(h.calls[0]!);
    // b has waited 4 of its 10 ms: its batch closes 6 ms later, not 10.
    await vi.advanceTimersByTimeAsync(5);
    expect(h.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.calls.map((x) => x.ids)).toEqual([[a], [b]]);
  });
});

describe('batches in flight', () => {
  test.each([1, 2, 3])('with inFlight %i, never more batches run at once, and a waiting one starts when a running one ends', async (inFlight) => {
    vi.useFakeTimers();
    const h = harness({ size: 2, lingerMs: 0, inFlight });
    const ids = Array.from({ length: 13 }, (_, i) => h.submit(`k${i}`));
    const batches = Math.ceil(ids.length / 2);
    let ended = 0;
    while (ended < batches) {
      await flush();
      expect(h.running.size).toBe(Math.min(inFlight, batches - ended));
      const oldest = [...h.running][0]!;
      h.succeed(oldest);
      ended += 1;
    }
    await flush();
    expect(h.mostRunning()).toBe(inFlight);
    expect(h.calls.flatMap((c) => c.ids)).toEqual(ids);
    expect(h.calls.every((c) => c.ids.length <= 2)).toBe(true);
    expect(h.outcomes.size).toBe(ids.length);
    for (const id of ids) expect(h.outcomes.get(id)).toEqual({ value: valueOf(id) });
  });
});

describe('the order of one key', () => {
  test('requests of one key reach run in arrival order, within a batch and across batches', async () => {
    vi.useFakeTimers();
    const h = harness({ size: 3, lingerMs: 0, inFlight: 2 });
    const k1 = h.submit('k');
    const x1 = h.submit('x');
    const k2 = h.submit('k');
    // Full: runs at once.
    expect(h.calls.map((c) => c.ids)).toEqual([[k1, x1, k2]]);
    const k3 = h.submit('k');
    const y1 = h.submit('y');
    const k4 = h.submit('k');
    // Three waiting fill a batch, but k is running: only y goes.
    expect(h.calls.map((c) => c.ids)).toEqual([[k1, x1, k2], [y1]]);
    h.succeed(h.calls[1]!);
    await flush();
    expect(h.calls).toHaveLength(2);
    expect(h.batcher.waiting).toBe(2);
    h.succeed(h.calls[0]!);
    await flush();
    expect(h.calls.map((c) => c.ids)).toEqual([[k1, x1, k2], [y1], [k3, k4]]);
    const kOrder = h.calls.flatMap((c) => c.members.filter((m) => m.key === 'k').map((m) => m.id));
    expect(kOrder).toEqual([k1, k2, k3, k4]);
  });

  test("a key in a running batch holds back all its later requests until that batch ends, while other keys' requests still form a batch", async () => {
    vi.useFakeTimers();
    const h = harness({ size: 64, lingerMs: 0, inFlight: 2 });
    const a1 = h.submit('a');
    await flush();
    expect(h.calls.map((c) => c.ids)).toEqual([[a1]]);
    const a2 = h.submit('a');
    const b1 = h.submit('b');
    const a3 = h.submit('a');
    const c1 = h.submit('c');
    const a4 = h.submit('a');
    await flush();
    expect(h.calls.map((c) => c.ids)).toEqual([[a1], [b1, c1]]);
    expect(h.calls[1]!.members.some((m) => m.key === 'a')).toBe(false);
    // A free slot does not let any of them past a1 either.
    h.succeed(h.calls[1]!);
    await vi.advanceTimersByTimeAsync(50);
    expect(h.calls).toHaveLength(2);
    expect(h.batcher.waiting).toBe(3);
    expect([a2, a3, a4].some((id) => h.outcomes.has(id))).toBe(false);
    h.succeed(h.calls[0]!);
    await flush();
    expect(h.calls.map((c) => c.ids)).toEqual([[a1], [b1, c1], [a2, a3, a4]]);
  });

  test("a slot that frees while a key still runs is filled from other keys only, skipping every one of that key's waiting requests", async () => {
    vi.useFakeTimers();
    // Linger 60 ms: only full batches and ended batches start anything here.
    const h = harness({ size: 2, lingerMs: 60, inFlight: 2 });
    const a1 = h.submit('a');
    const z1 = h.submit('z');
    const q1 = h.submit('q');
    const r1 = h.submit('r');
    expect(h.calls.map((c) => c.ids)).toEqual([[a1, z1], [q1, r1]]);
    const x1 = h.submit('x');
    const a2 = h.submit('a');
    const y1 = h.submit('y');
    const a3 = h.submit('a');
    expect(h.calls).toHaveLength(2);
    h.succeed(h.calls[1]!);
    await flush();
    // a2 was next in line, but a1 still runs: x1 and y1 fill the batch.
    expect(h.calls.map((c) => c.ids)).toEqual([[a1, z1], [q1, r1], [x1, y1]]);
    h.succeed(h.calls[0]!);
    await flush();
    expect(h.calls.map((c) => c.ids)).toEqual([[a1, z1], [q1, r1], [x1, y1], [a2, a3]]);
  });
});

describe('results', () => {
  test.each([
    ['rejects', (error: Error) => Promise.reject(error)],
    ['throws before returning a promise', (error: Error) => {
      throw error;
    }],
  ])('a run that %s rejects every member of its batch with that error, and the next batch still runs', async (_how, fail) => {
    vi.useFakeTimers();
    const error = new Error('database gone');
    let failing = true;
    const seen: string[][] = [];
    const batcher = new DecisionBatcher<Item, string>({ size: 64, lingerMs: 0, inFlight: 1 }, (members) => {
      seen.push(members.map((m) => m.id));
      if (failing) return fail(error);
      return Promise.resolve(allOk(members));
    });
    const first = ['a1', 'b1', 'a2'].map((id) => batcher.submit(id[0]!, { key: id[0]!, id }).then((v) => ({ v }), (e: unknown) => ({ e })));
    await flush();
    for (const outcome of await Promise.all(first)) expect((outcome as { e: unknown }).e).toBe(error);
    failing = false;
    const next = batcher.submit('a', { key: 'a', id: 'a3' });
    await flush();
    await expect(next).resolves.toBe(valueOf('a3'));
    expect(seen).toEqual([['a1', 'b1', 'a2'], ['a3']]);
  });

  test('a member settled {ok: false} rejects only that member; the others of its batch get their values', async () => {
    vi.useFakeTimers();
    const h = harness();
    const ids = ['a', 'b', 'c', 'a'].map((k) => h.submit(k));
    await flush();
    const refused = new Error('agent frozen');
    h.calls[0]!.resolve(h.calls[0]!.members.map((m, i) => (i === 1 ? { ok: false, error: refused } : { ok: true, value: valueOf(m.id) })));
    await flush();
    expect(h.outcomes.get(ids[0]!)).toEqual({ value: valueOf(ids[0]!) });
    expect((h.outcomes.get(ids[1]!) as { error: unknown }).error).toBe(refused);
    expect(h.outcomes.get(ids[2]!)).toEqual({ value: valueOf(ids[2]!) });
    expect(h.outcomes.get(ids[3]!)).toEqual({ value: valueOf(ids[3]!) });
    expect([...h.outcomes.values()].filter((o) => 'error' in o)).toHaveLength(1);
  });

  test('each caller is given the result at its own index, also with several requests of one key in the batch', async () => {
    vi.useFakeTimers();
    const h = harness({ size: 8 });
    const ids = ['x', 'y', 'x', 'z', 'x', 'y'].map((k) => h.submit(k));
    await flush();
    const [call] = h.calls;
    expect(call!.ids).toEqual(ids);
    // Values that are not derived from the id, so only the index can pair them.
    call!.resolve(call!.members.map((_, i) => ({ ok: true, value: `#${i}` })));
    await flush();
    ids.forEach((id, i) => expect(h.outcomes.get(id)).toEqual({ value: `#${i}` }));
  });

  test('a member the run gives no result for is rejected, not left waiting; the ones before it get theirs', async () => {
    vi.useFakeTimers();
    const h = harness();
    const [a, b, c] = ['a', 'b', 'c'].map((k) => h.submit(k));
    await flush();
    h.calls[0]!.resolve(allOk(h.calls[0]!.members).slice(0, 1));
    await flush();
    expect(h.outcomes.get(a!)).toEqual({ value: valueOf(a!) });
    for (const id of [b!, c!]) expect(String((h.outcomes.get(id) as { error: unknown }).error)).toMatch(/without a result/);
  });

  test('waiting counts the requests not yet given to run', async () => {
    vi.useFakeTimers();
    const h = harness({ size: 2, inFlight: 1 });
    expect(h.batcher.waiting).toBe(0);
    h.submit('a');
    expect(h.batcher.waiting).toBe(1);
    h.submit('b');
    expect(h.batcher.waiting).toBe(0);
    h.submit('c');
    h.submit('d');
    h.submit('e');
    expect(h.batcher.waiting).toBe(3);
    h.succeed(h.calls[0]!);
    await flush();
    expect(h.batcher.waiting).toBe(1);
  });
});

describe('property: any sequence of submissions, batch sizes, slots and run timings', () => {
  type Gap = 'none' | 'microtask' | 'immediate' | 'timer';
  type Delay = 'none' | 'microtasks' | 'immediate' | 'timer0' | 'timer1';
  type RunOutcome = 'ok' | 'some members fail' | 'throws';

  const wait = async (how: Gap | Delay) => {
    if (how === 'microtask') await Promise.resolve();
    else if (how === 'microtasks') for (let i = 0; i < 4; i++) await Promise.resolve();
    else if (how === 'immediate') await new Promise<void>((r) => setImmediate(r));
    else if (how === 'timer' || how === 'timer0') await new Promise<void>((r) => setTimeout(r, 0));
    else if (how === 'timer1') await new Promise<void>((r) => setTimeout(r, 1));
  };

  test('each key reaches run in submission order, no two running batches share a key, and every submission settles once with its own result', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ size: fc.integer({ min: 1, max: 5 }), inFlight: fc.integer({ min: 1, max: 3 }), lingerMs: fc.constantFrom(0, 1) }),
        fc.array(fc.record({ key: fc.constantFrom('a', 'b', 'c', 'd'), gap: fc.constantFrom<Gap>('none', 'none', 'microtask', 'immediate', 'timer') }), { minLength: 1, maxLength: 30 }),
        fc.array(
          fc.record({
            delay: fc.constantFrom<Delay>('none', 'microtasks', 'immediate', 'timer0', 'timer1'),
            outcome: fc.constantFrom<RunOutcome>('ok', 'ok', 'ok', 'some members fail', 'throws'),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (settings, submissions, plans) => {
          const passed: Item[] = [];
          const runningKeys = new Set<string>();
          const violations: string[] = [];
          let running = 0;
          /** For each member: the error its batch was failed with, or the error of its own. */
          const expectedError = new Map<string, unknown>();
          const timesRun = new Map<string, number>();
          let batchNo = 0;
          const batcher = new DecisionBatcher<Item, string>(settings, async (members) => {
            const plan = plans[batchNo % plans.length]!;
            const batchError = new Error(`batch ${batchNo} failed`);
            batchNo += 1;
            running += 1;
            if (running > settings.inFlight) violations.push(`${running} batches running, inFlight ${settings.inFlight}`);
            if (members.length < 1 || members.length > settings.size) violations.push(`a batch of ${members.length}, size ${settings.size}`);
            const keys = new Set(members.map((m) => m.key));
            for (const k of keys) if (runningKeys.has(k)) violations.push(`key ${k} in two running batches`);
            for (const k of keys) runningKeys.add(k);
            for (const m of members) {
              passed.push(m);
              timesRun.set(m.id, (timesRun.get(m.id) ?? 0) + 1);
            }
            await wait(plan.delay);
            for (const k of keys) runningKeys.delete(k);
            running -= 1;
            if (plan.outcome === 'throws') {
              for (const m of members) expectedError.set(m.id, batchError);
              throw batchError;
            }
            return members.map((m, i): Settled<string> => {
              if (plan.outcome === 'some members fail' && i % 2 === 1) {
                const own = new Error(`member ${m.id} failed`);
                expectedError.set(m.id, own);
                return { ok: false, error: own };
              }
              return { ok: true, value: valueOf(m.id) };
            });
          });

          const submitted: Item[] = [];
          const settledCount = new Map<string, number>();
          const results: Promise<Outcome>[] = [];
          for (const [i, s] of submissions.entries()) {
            if (s.gap !== 'none') await wait(s.gap);
            const item = { key: s.key, id: `${s.key}#${i}` };
            submitted.push(item);
            results.push(
              batcher.submit(item.key, item).then(
                (value): Outcome => {
                  settledCount.set(item.id, (settledCount.get(item.id) ?? 0) + 1);
                  return { value };
                },
                (error: unknown): Outcome => {
                  settledCount.set(item.id, (settledCount.get(item.id) ?? 0) + 1);
                  return { error };
                },
              ),
            );
          }
          let timer: NodeJS.Timeout | undefined;
          const hung = new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), 5_000)));
          const outcomes = await Promise.race([Promise.all(results), hung]);
          clearTimeout(timer);
          expect(outcomes, 'some submission never settled').not.toBe('hung');

          expect(violations).toEqual([]);
          // (a) per key, the order members reached run is the order they were submitted in.
          for (const key of ['a', 'b', 'c', 'd']) {
            expect(passed.filter((m) => m.key === key).map((m) => m.id)).toEqual(submitted.filter((m) => m.key === key).map((m) => m.id));
          }
          // (c) each submission went to run once and was settled once, with its own result.
          for (const [i, item] of submitted.entries()) {
            expect(timesRun.get(item.id), item.id).toBe(1);
            expect(settledCount.get(item.id), item.id).toBe(1);
            const outcome = (outcomes as Outcome[])[i]!;
            if (expectedError.has(item.id)) {
              expect('error' in outcome && outcome.error, item.id).toBe(expectedError.get(item.id));
            } else {
              expect(outcome, item.id).toEqual({ value: valueOf(item.id) });
            }
          }
          expect(batcher.waiting).toBe(0);
        },
      ),
      { numRuns: 150 },
    );
  });
});
