/**
 * Attack: a forged root credential that a lax verifier would take: `alg: none` with no signature,
 * `HS256` with the mandate key's public JWK as the HMAC secret (the classic key confusion), or
 * `ES256K` (another curve). Only ES256 with one of our mandate keys verifies (DECISIONS §20 step
 * 2): each is `invalid_credential`, nothing recorded.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { mandateFixture } from '../support/mandates.js';
import { decisionCount, presenting } from '../support/mandate-presenting.js';
import { b64json, decodeJwt, partOf, partText } from '../support/mandate-forge.js';

let ctx: TestContext;
let acct: TestAccount;
let p: ReturnType<typeof presenting>;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
  p = presenting(ctx);
});
afterAll(() => ctx?.close());

/** The credential with its JWT's header changed and its signature made by `signature(input)`. */
function forged(credential: string, alg: string, signature: (input: string) => string): string {
  const part = partOf(credential);
  const { header, payload } = decodeJwt(part.jwt);
  const input = `${b64json({ ...header, alg })}.${b64json(payload)}`;
  return partText({ ...part, jwt: `${input}.${signature(input)}` });
}

test.each([
  ['none', () => ''],
  ['HS256 keyed with the public JWK', (input: string) => createHmac('sha256', JSON.stringify(ctx.mandateKeys.jwks[0])).update(input).digest('base64url')],
  ['HS256 keyed with the public x', (input: string) => createHmac('sha256', String(ctx.mandateKeys.jwks[0]!.x)).update(input).digest('base64url')],
  ['ES256K', (input: string) => createHmac('sha256', 'x').update(input).digest('base64url')],
] as const)('root alg %s → invalid_credential', async (name, sign) => {
  const fx = await mandateFixture(acct.test);
  const alg = name.split(' ')[0]!;
  const res = await p.verify(acct.test, fx, await p.close(fx, {}, forged(fx.mandate.credential, alg, sign)));
  expect(res.body).toMatchObject({ status: 'Error', error: 'invalid_credential', decision_id: null });
  expect(await decisionCount(ctx, fx.agentId)).toBe(0);
});
