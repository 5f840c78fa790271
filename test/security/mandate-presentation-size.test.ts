/**
 * Attack: a presentation built to make the verifier work: as many tiny disclosures as the 64 KiB
 * body holds, disclosures nested in disclosures past any sensible depth, or one disclosure whose
 * value is arrays nested tens of thousands deep (a recursive walker's stack). Each is refused with
 * `invalid_credential` (at most 64 disclosures, nested at most 8 deep: DECISIONS §20 step 2), as a
 * 200 answer, never a 500; nothing is recorded. (How fast is the bench's business, not this test's.)
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateFixture } from '../support/mandates.js';
import { decisionCount, presenting } from '../support/mandate-presenting.js';
import { decodeJwt, delegateDisclosure, digestOf, disclosureOf, partOf, partText, reissue, signJwt } from '../support/mandate-forge.js';
import { MAX_DISCLOSURE_DEPTH, MAX_DISCLOSURES } from '../../src/mandates/mandate-deps.js';

let ctx: TestContext;
let acct: TestAccount;
let p: ReturnType<typeof presenting>;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  p = presenting(ctx);
});
afterAll(() => ctx?.close());

async function expectRefused(fx: Awaited<ReturnType<typeof mandateFixture>>, presentation: string) {
  const res = await p.verify(acct.test, fx, presentation);
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', decision_id: null });
  expect(await decisionCount(ctx, fx.agentId)).toBe(0);
}

test('a presentation of as many tiny disclosures as fit in the body', async () => {
  const fx = await mandateFixture(acct.test);
  const part = partOf(fx.mandate.credential);
  const tiny = Array.from({ length: 3_600 }, (_, i) => disclosureOf(i, 's'));
  const credential = partText({ ...part, disclosures: [...part.disclosures, ...tiny] });
  const presentation = await p.close(fx, {}, credential);
  expect(presentation.length).toBeGreaterThan(40_000);
  expect(presentation.length).toBeLessThan(64 * 1024 - 200);
  await expectRefused(fx, presentation);
});

test(`${MAX_DISCLOSURES + 1} disclosures, every one referenced (signed by our key): over the cap`, async () => {
  const fx = await mandateFixture(acct.test);
  const extra = Array.from({ length: MAX_DISCLOSURES }, (_, i) => disclosureOf({ n: i }));
  const credential = reissue(fx.mandate.credential, ctx.mandateKeys.current.privateKey, { delegate: (d) => ({ ...d, risk_data: { items: extra.map((x) => ({ '...': digestOf(x) })) } }) });
  const part = partOf(credential);
  await expectRefused(fx, await p.close(fx, {}, partText({ ...part, disclosures: [...extra, ...part.disclosures] })));
});

test(`disclosures nested ${MAX_DISCLOSURE_DEPTH + 1} deep`, async () => {
  const fx = await mandateFixture(acct.test);
  let inner = disclosureOf('bottom');
  const chain = [inner];
  for (let i = 0; i < MAX_DISCLOSURE_DEPTH + 1; i++) {
    inner = disclosureOf([{ '...': digestOf(inner) }]);
    chain.push(inner);
  }
  const credential = reissue(fx.mandate.credential, ctx.mandateKeys.current.privateKey, { delegate: (d) => ({ ...d, risk_data: { deep: [{ '...': digestOf(inner) }] } }) });
  const part = partOf(credential);
  await expectRefused(fx, await p.close(fx, {}, partText({ ...part, disclosures: [...chain, ...part.disclosures] })));
});

test('a disclosure whose value is arrays nested 20,000 deep', async () => {
  const fx = await mandateFixture(acct.test);
  // Written as text: JSON.stringify itself would not get that deep.
  const part = partOf(fx.mandate.credential);
  const { index, value } = delegateDisclosure(part);
  const text = JSON.stringify(['salt-deep', { ...value, risk_data: { deep: 0 } }]).replace('"deep":0', `"deep":${'['.repeat(20_000)}${']'.repeat(20_000)}`);
  const deep = Buffer.from(text, 'utf8').toString('base64url');
  const { header, payload } = decodeJwt(part.jwt);
  const jwt = signJwt(header, { ...payload, delegate_payload: [{ '...': digestOf(deep) }] }, ctx.mandateKeys.current.privateKey);
  const credential = partText({ jwt, disclosures: part.disclosures.map((d, i) => (i === index ? deep : d)) });
  await expectRefused(fx, await p.close(fx, {}, credential));
});
