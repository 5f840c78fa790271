/**
 * Attack: an agent holding a mandate edits what it discloses: it changes an allowed payee's
 * disclosure to add a payee it prefers (the digest in the signed credential no longer matches), or
 * swaps the closed mandate's disclosure for another with the same salt (a bigger amount, after
 * signing). Every digest must have exactly its one disclosure (DECISIONS §20 step 2): both are
 * `invalid_credential`, and nothing is recorded.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateFixture } from '../support/mandates.js';
import { decisionCount, presenting } from '../support/mandate-presenting.js';
import { b64json, joinPresentation, partOf, partText, splitPresentation } from '../support/mandate-forge.js';

let ctx: TestContext;
let acct: TestAccount;
let p: ReturnType<typeof presenting>;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  p = presenting(ctx);
});
afterAll(() => ctx?.close());

const decode = (d: string): unknown[] => JSON.parse(Buffer.from(d, 'base64url').toString('utf8'));

test("a payee disclosure changed (the digest no longer matches) → invalid_credential", async () => {
  const fx = await mandateFixture(acct.test);
  const open = partOf(fx.mandate.credential);
  const i = open.disclosures.findIndex((d) => JSON.stringify(decode(d)).includes('merchant-1'));
  expect(i).toBeGreaterThanOrEqual(0);
  const [salt, payee] = decode(open.disclosures[i]!) as [string, Record<string, unknown>];
  const forged = { ...open, disclosures: open.disclosures.map((d, j) => (j === i ? b64json([salt, { ...payee, id: 'merchant-evil', website: 'https://evil.example' }]) : d)) };
  const presentation = await p.close(fx, { payee: { id: 'merchant-evil', name: 'Cat Store', website: 'https://evil.example' } }, partText(forged));
  const res = await p.verify(acct.test, fx, presentation);
  expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', decision_id: null });
  expect(await decisionCount(ctx, fx.agentId)).toBe(0);
});

test('the closed disclosure swapped for another with the same salt (a bigger amount) → invalid_credential', async () => {
  const fx = await mandateFixture(acct.test);
  const presentation = await p.close(fx, { payment_amount: { amount: 100, currency: 'USD' } });
  const { open, closed } = splitPresentation(presentation);
  const [salt, mandate] = decode(closed.disclosures[0]!) as [string, Record<string, any>];
  const swapped = { ...closed, disclosures: [b64json([salt, { ...mandate, payment_amount: { amount: 9_000, currency: 'USD' } }])] };
  const res = await p.verify(acct.test, fx, joinPresentation(open, swapped));
  expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', decision_id: null });
  expect(await decisionCount(ctx, fx.agentId)).toBe(0);
  // The untouched one is fine.
  expect((await p.verify(acct.test, fx, presentation)).body.status).toBe('Success');
});
