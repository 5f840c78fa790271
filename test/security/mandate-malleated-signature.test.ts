/**
 * Attack: whoever saw a presentation (the payee, a log) re-encodes the closed part's ECDSA
 * signature. (r, n − s) verifies as well as (r, s), so the closed JWT, and its reference, differ
 * while the signed bytes do not. Presented again, it must get the first answer, not a second
 * decision: a second approval of the same payment, or a stream of denials that bill the account
 * and push the agent towards its auto-freeze.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateFixture } from '../support/mandates.js';
import { decisionCount, presenting } from '../support/mandate-presenting.js';

/** The order of P-256's base point. */
const N = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/** The same presentation with the closed JWT's signature (r ‖ s) re-encoded as (r ‖ n − s). */
function malleate(presentation: string): string {
  const [open, closed] = presentation.split('~~') as [string, string];
  const [jwt, ...rest] = closed.split('~');
  const [h, p, sig] = jwt!.split('.') as [string, string, string];
  const bytes = Buffer.from(sig, 'base64url');
  const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`);
  const flipped = Buffer.from((N - s).toString(16).padStart(64, '0'), 'hex');
  const other = Buffer.concat([bytes.subarray(0, 32), flipped]).toString('base64url');
  return `${open}~~${[`${h}.${p}.${other}`, ...rest].join('~')}`;
}

let ctx: TestContext;
let acct: TestAccount;
let p: ReturnType<typeof presenting>;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  p = presenting(ctx);
});
afterAll(() => ctx?.close());

test('an approved presentation with its signature re-encoded gets the first answer, not a second decision', async () => {
  const fx = await mandateFixture(acct.test, { mandate: { recurrence: { frequency: 'ON_DEMAND' }, budget: 100_000 } });
  const presentation = await p.close(fx);
  const twin = malleate(presentation);
  expect(twin).not.toBe(presentation);

  const first = await p.verify(acct.test, fx, presentation);
  expect(first.body).toMatchObject({ status: 'Success' });
  const again = await p.verify(acct.test, fx, twin);
  expect(again.text).toBe(first.text);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await decisionCount(ctx, fx.agentId)).toBe(1);
  const mandate = (await acct.test.get(`/v1/mandates/${fx.mandate.id}`)).body;
  expect(mandate).toMatchObject({ uses: 1, budget_used: 1_000 });
});

test('the re-encoded twin presented first is decided, and then the original is its replay', async () => {
  const fx = await mandateFixture(acct.test);
  const presentation = await p.close(fx);
  const first = await p.verify(acct.test, fx, malleate(presentation));
  expect(first.body).toMatchObject({ status: 'Success' });
  const again = await p.verify(acct.test, fx, presentation);
  expect(again.text).toBe(first.text);
  expect(await decisionCount(ctx, fx.agentId)).toBe(1);
});

test('both encodings at once: one decision, the same answer twice', async () => {
  const fx = await mandateFixture(acct.test, { mandate: { recurrence: { frequency: 'ON_DEMAND' }, budget: 100_000 } });
  const presentation = await p.close(fx);
  const [a, b] = await Promise.all([p.verify(acct.test, fx, presentation), p.verify(acct.test, fx, malleate(presentation))]);
  expect(a.text).toBe(b.text);
  expect(await decisionCount(ctx, fx.agentId)).toBe(1);
});
