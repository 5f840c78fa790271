/**
 * Attack: a rail that verifies `gca_` tokens offline with `spend-auth/client` is handed a genuine
 * token of another account, or of the other mode (a test-mode approval presented to a live rail,
 * and the reverse), or one whose claims were rewritten to name its account. `verifyToken` must
 * refuse each (TokenError, never the claims): the signature and `aud` and `livemode` are checked
 * against the real service's JWKS.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SpendAuth, TokenError, type TokenClaims } from '../../src/client/index.js';
import { agentWithPolicy, createTestContext, type Client, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let mine: TestAccount;
let theirs: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  [mine, theirs] = [await ctx.account('growth'), await ctx.account('growth')];
});
afterAll(() => ctx?.close());

async function approvedToken(client: Client): Promise<string> {
  const { agentId } = await agentWithPolicy(client);
  const d = await new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: client.key }).authorize({ agent_id: agentId, amount: 500, currency: 'USD', vendor: 'shop.example' });
  expect(d.decision).toBe('approved');
  return d.authorization_token!;
}

/** A rail of `account` in `livemode`, verifying offline. */
const rail = (account: string, livemode: boolean) => (token: string) =>
  new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: mine.test.key }).verifyToken(token, { account, livemode }).then(
    (claims: TokenClaims) => ({ accepted: claims }),
    (e: unknown) => ({ refused: e as TokenError }),
  );

test("another account's genuine token is refused: wrong_audience", async () => {
  const token = await approvedToken(theirs.test);
  const outcome = await rail(mine.id, false)(token);
  expect('refused' in outcome && outcome.refused).toBeInstanceOf(TokenError);
  expect(outcome).toMatchObject({ refused: { code: 'wrong_audience', param: 'aud' } });
  // Its own account's rail takes it: the refusal is the audience, not the token.
  expect(await rail(theirs.id, false)(token)).toMatchObject({ accepted: { aud: theirs.id } });
});

test('a test-mode token at a live rail, and a live token at a test rail, are refused', async () => {
  const testToken = await approvedToken(mine.test);
  const liveToken = await approvedToken(mine.live!);
  expect(await rail(mine.id, true)(testToken)).toMatchObject({ refused: { code: 'wrong_audience', param: 'livemode' } });
  expect(await rail(mine.id, false)(liveToken)).toMatchObject({ refused: { code: 'wrong_audience', param: 'livemode' } });
  expect(await rail(mine.id, true)(liveToken)).toMatchObject({ accepted: { livemode: true, aud: mine.id } });
});

test("another account's token rewritten to name this account (or live mode) no longer verifies: bad_signature", async () => {
  const token = await approvedToken(theirs.test);
  const [header, payload, signature] = token.slice('gca_'.length).split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
  for (const forged of [{ ...claims, aud: mine.id }, { ...claims, aud: mine.id, livemode: true }]) {
    const rewritten = `gca_${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`;
    expect(await rail(mine.id, forged.livemode)(rewritten)).toMatchObject({ refused: { code: 'bad_signature' } });
  }
});
