/**
 * Attack: the service's signing key signs more than authorization tokens. An audit checkpoint
 * (GET /v1/audit-logs/verify, header `typ` `audit-checkpoint+jwt`) is signed with the same EdDSA
 * key, names the account in `aud`, carries a boolean `livemode` and has no `exp`: with `gca_` put
 * in front, a rail verifying offline with `spend-auth/client` must not take it as an approval (it
 * would never expire). `verifyToken` requires header `typ` `JWT` and every claim a token carries
 * (`exp`, `iat`, `jti`, `sub`, `amount`, `currency`): anything else is `malformed`.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { SpendAuth, TokenError } from '../../src/client/index.js';
import { signAuthorizationToken } from '../../src/tokens/authorization-token.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let spend: SpendAuth;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account();
  spend = new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: acct.test.key });
});
afterAll(() => ctx?.close());

const refusal = (token: string) =>
  spend.verifyToken(token, { account: acct.id, livemode: false }).then(
    (claims) => ({ accepted: claims }),
    (e: unknown) => ({ refused: e as TokenError }),
  );

test("a real audit checkpoint with gca_ in front is refused: malformed (typ), never its claims", async () => {
  const { agentId } = await agentWithPolicy(acct.test);
  expect((await spend.authorize({ agent_id: agentId, amount: 100, currency: 'USD', vendor: 'a.example' })).decision).toBe('approved');
  const verified = await acct.test.get('/v1/audit-logs/verify');
  expect(verified.status).toBe(200);
  const checkpoint = verified.body.checkpoint as string;
  const header = JSON.parse(Buffer.from(checkpoint.split('.')[0]!, 'base64url').toString('utf8'));
  const claims = JSON.parse(Buffer.from(checkpoint.split('.')[1]!, 'base64url').toString('utf8'));
  // What makes it dangerous: the service's key, this account, this mode, no expiry.
  expect(header).toMatchObject({ alg: 'EdDSA', typ: 'audit-checkpoint+jwt' });
  expect(claims).toMatchObject({ aud: acct.id, livemode: false });
  expect(claims.exp).toBeUndefined();

  const outcome = await refusal(`gca_${checkpoint}`);
  expect('refused' in outcome && outcome.refused).toBeInstanceOf(TokenError);
  expect(outcome).toMatchObject({ refused: { code: 'malformed', param: 'typ' } });
});

test("signed by the service's own key with typ JWT but lacking a token's claim: malformed, param the claim", async () => {
  const { kid, key } = ctx.signer.keys.current;
  const now = Math.floor(Date.now() / 1000);
  const full = { sub: 'agt_x', jti: 'dec_x', amount: 100, currency: 'USD', vendor: 'a.example', livemode: false, iat: now, exp: now + 600 };
  const sign = (claims: Record<string, unknown>, typ = 'JWT') => new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ }).setAudience(acct.id).sign(key);
  for (const claim of ['exp', 'iat', 'jti', 'sub', 'amount', 'currency'] as const) {
    const { [claim]: _left, ...rest } = full;
    expect(await refusal(`gca_${await sign(rest)}`), claim).toMatchObject({ refused: { code: 'malformed', param: claim } });
  }
  expect(await refusal(`gca_${await sign({ ...full, amount: '100' })}`)).toMatchObject({ refused: { code: 'malformed', param: 'amount' } });
  expect(await refusal(`gca_${await sign(full, 'audit-checkpoint+jwt')}`)).toMatchObject({ refused: { code: 'malformed', param: 'typ' } });
  // With every claim and typ JWT the same key's signature verifies: the refusals above are the checks.
  expect(await refusal(`gca_${await sign(full)}`)).toMatchObject({ accepted: { jti: 'dec_x' } });
  // And a genuine token of the service passes.
  const genuine = await signAuthorizationToken(ctx.signer, { aud: acct.id, sub: 'agt_y', jti: 'dec_y', amount: 1, currency: 'USD', vendor: 'b.example', category: null, policy: null, livemode: false }, new Date());
  expect(await refusal(genuine.token)).toMatchObject({ accepted: { jti: 'dec_y' } });
});
