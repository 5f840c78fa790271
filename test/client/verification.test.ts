/**
 * The offline checks of `spend-auth/client`: `verifyToken` against the real service's JWKS (tokens
 * of real approvals, good, of another account, of the other mode, tampered, expired, signed by a
 * key the service does not have) and `verifyWebhook` on a real signed delivery (the delivery
 * activity posting to a receiver on 127.0.0.1) and on the signer's output: good, tampered, stale.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { SpendAuth, SpendAuthError, TokenError, verifyWebhook, WebhookVerificationError, DEFAULT_WEBHOOK_TOLERANCE_SECONDS, type Fetch } from '../../src/client/index.js';
import { signAuthorizationToken } from '../../src/tokens/authorization-token.js';
import { buildSignedDelivery, hmacHex } from '../../src/webhooks/signature.js';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import { oneRealDelivery } from '../support/client-deliveries.js';
import { startReceiver } from '../support/receiver.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  ctx = await createTestContext({ allowPrivateUrls: true, testModeRateLimit: 10_000 });
  acct = await ctx.account();
  ({ agentId } = await agentWithPolicy(acct.test));
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await ctx?.close();
});

function jwksCounting(): { fetch: Fetch; jwksFetches: () => number } {
  let n = 0;
  return { jwksFetches: () => n, fetch: (req) => (new URL(req.url).pathname === '/v1/.well-known/jwks.json' && n++, fetch(req)) };
}

const approvedToken = async (spend: SpendAuth, agent = agentId) => (await spend.authorize({ agent_id: agent, amount: 250, currency: 'USD', vendor: 'openai.com' })).authorization_token!;

const rejection = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as TokenError);

describe('verifyToken', () => {
  test('a real approval verifies offline: its claims; the key set is fetched once and kept', async () => {
    const { fetch: f, jwksFetches } = jwksCounting();
    const spend = new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: acct.test.key, fetch: f });
    const token = await approvedToken(spend);
    const claims = await spend.verifyToken(token, { account: acct.id, livemode: false });
    expect(claims).toMatchObject({ aud: acct.id, sub: agentId, amount: 250, currency: 'USD', vendor: 'openai.com', livemode: false });
    expect(await spend.verifyToken(await approvedToken(spend), { account: acct.id, livemode: false })).toMatchObject({ aud: acct.id });
    expect(jwksFetches()).toBe(1);
  });

  test('another account: wrong_audience (param aud); the other mode: wrong_audience (param livemode)', async () => {
    const spend = new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: acct.test.key });
    const token = await approvedToken(spend);
    const other = await ctx.account();
    expect(await rejection(spend.verifyToken(token, { account: other.id, livemode: false }))).toMatchObject({ name: 'TokenError', code: 'wrong_audience', param: 'aud', status: null });
    expect(await rejection(spend.verifyToken(token, { account: acct.id, livemode: true }))).toMatchObject({ code: 'wrong_audience', param: 'livemode' });
  });

  test('tampered (claims changed, signature kept): bad_signature; not a gca_ token: malformed; expired: expired', async () => {
    const spend = new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: acct.test.key });
    const token = await approvedToken(spend);
    const [header, payload, signature] = token.slice(4).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    const richer = Buffer.from(JSON.stringify({ ...claims, amount: 250_000 })).toString('base64url');
    const e = await rejection(spend.verifyToken(`gca_${header}.${richer}.${signature}`, { account: acct.id, livemode: false }));
    expect(e).toBeInstanceOf(TokenError);
    expect(e).toMatchObject({ code: 'bad_signature' });
    expect(await rejection(spend.verifyToken(token.slice(4), { account: acct.id, livemode: false }))).toMatchObject({ code: 'malformed' });
    expect(await rejection(spend.verifyToken('gca_not.a.jws', { account: acct.id, livemode: false }))).toMatchObject({ code: 'malformed' });
    // Signed by the service's own key, 20 minutes ago: its 15-minute lifetime is over.
    const old = await signAuthorizationToken(
      ctx.signer,
      { aud: acct.id, sub: agentId, jti: 'dec_old', amount: 1, currency: 'USD', vendor: 'a.example', category: null, policy: null, livemode: false },
      new Date(Date.now() - 20 * 60_000),
    );
    expect(await rejection(spend.verifyToken(old.token, { account: acct.id, livemode: false }))).toMatchObject({ code: 'expired' });
  });

  test("a key the service does not have: unknown_key; unknown kids refetch the key set at most once a minute", async () => {
    const { fetch: f, jwksFetches } = jwksCounting();
    const spend = new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: acct.test.key, fetch: f });
    await spend.verifyToken(await approvedToken(spend), { account: acct.id, livemode: false });
    expect(jwksFetches()).toBe(1);
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const forge = async (kid: string) =>
      `gca_${await new SignJWT({ amount: 1, currency: 'USD', vendor: 'x', livemode: false }).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' }).setAudience(acct.id).setExpirationTime('5m').sign(privateKey)}`;
    // The first unknown kid may wait for the cooldown that began with the first fetch: it is refused either way.
    for (const kid of ['forged-1', 'forged-2', 'forged-3']) expect(await rejection(spend.verifyToken(await forge(kid), { account: acct.id, livemode: false }))).toMatchObject({ code: 'unknown_key' });
    expect(jwksFetches()).toBe(1);
    // A minute later (the clock only: timers stay real) one unknown kid fetches it again, once.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      for (const kid of ['forged-4', 'forged-5']) expect(await rejection(spend.verifyToken(await forge(kid), { account: acct.id, livemode: false }))).toMatchObject({ code: 'unknown_key' });
      expect(jwksFetches()).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  test('a key set that cannot be fetched: jwks_unavailable, nothing passes', async () => {
    const spend = new SpendAuth({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: acct.test.key });
    const token = await approvedToken(new SpendAuth({ baseUrl: `${ctx.baseUrl}/v1`, apiKey: acct.test.key }));
    expect(await rejection(spend.verifyToken(token, { account: acct.id, livemode: false }))).toMatchObject({ code: 'jwks_unavailable' });
  });
});

describe('verifyWebhook', () => {
  test('a real delivery verifies from its raw bytes and Node headers: the parsed event', async () => {
    // An account of its own: the relay fans every event of the account out to the new endpoint.
    const quiet = await ctx.account();
    const { agentId: quietAgent } = await agentWithPolicy(quiet.test);
    const { delivery, secret } = await oneRealDelivery(ctx, quiet, receiver, quietAgent);
    const event = await verifyWebhook(delivery.bytes, delivery.headers, secret);
    expect(event).toMatchObject({ event: 'authorize.approved', id: delivery.headers['x-service-delivery'] });
    if (event.event === 'authorize.approved') expect(event.data.agent_id).toBe(quietAgent);
    // The header's value alone, the body as a string, a fetch Headers: the same event.
    expect(await verifyWebhook(delivery.body, delivery.headers['x-service-signature'] as string, secret)).toEqual(event);
    expect(await verifyWebhook(delivery.body, new Headers({ 'X-Service-Signature': delivery.headers['x-service-signature'] as string }), secret)).toEqual(event);
    // Another secret, or the body re-serialized, does not verify.
    await expect(verifyWebhook(delivery.bytes, delivery.headers, 'whsec_another')).rejects.toMatchObject({ code: 'signature_invalid', param: 'X-Service-Signature' });
    await expect(verifyWebhook(JSON.stringify(JSON.parse(delivery.body), null, 1), delivery.headers, secret)).rejects.toBeInstanceOf(WebhookVerificationError);
  });

  const event = (createdAt: Date) => ({ id: 'evt_1', type: 'authorize.denied', data: { decision_id: 'dec_1', amount: 100 }, created_at: createdAt });

  test("the signer's output: good; tampered (one byte of the body); no or a malformed header", async () => {
    const { body, header } = buildSignedDelivery(event(new Date()), 'whsec_test');
    expect(await verifyWebhook(body, header, 'whsec_test')).toMatchObject({ id: 'evt_1', event: 'authorize.denied' });
    const tampered = body.replace('"amount":100', '"amount":900');
    expect(tampered).not.toBe(body);
    await expect(verifyWebhook(tampered, header, 'whsec_test')).rejects.toMatchObject({ name: 'WebhookVerificationError', code: 'signature_invalid' });
    await expect(verifyWebhook(body, {}, 'whsec_test')).rejects.toMatchObject({ code: 'signature_invalid' });
    await expect(verifyWebhook(body, header.toUpperCase(), 'whsec_test')).rejects.toMatchObject({ code: 'signature_invalid' });
    await expect(verifyWebhook(body, header.slice(0, -2), 'whsec_test')).rejects.toMatchObject({ code: 'signature_invalid' });
  });

  test('a stale timestamp is refused, a fresh one passes; tolerance is the caller\'s; the default covers the 3 days of retries', async () => {
    const now = new Date();
    const stale = buildSignedDelivery(event(new Date(now.getTime() - 10 * 60_000)), 'whsec_test');
    await expect(verifyWebhook(stale.body, stale.header, 'whsec_test', { tolerance: 300 })).rejects.toMatchObject({ code: 'timestamp_out_of_tolerance', param: 'timestamp' });
    expect(await verifyWebhook(stale.body, stale.header, 'whsec_test', { tolerance: 900 })).toMatchObject({ id: 'evt_1' });
    // Retried for up to 3 days with the same bytes: the default takes a 3-day-old retry, not a 4-day-old one.
    const retried = buildSignedDelivery(event(new Date(now.getTime() - 3 * 86_400_000)), 'whsec_test');
    expect(await verifyWebhook(retried.body, retried.header, 'whsec_test')).toMatchObject({ id: 'evt_1' });
    const older = buildSignedDelivery(event(new Date(now.getTime() - 4 * 86_400_000)), 'whsec_test');
    await expect(verifyWebhook(older.body, older.header, 'whsec_test')).rejects.toMatchObject({ code: 'timestamp_out_of_tolerance' });
    expect(DEFAULT_WEBHOOK_TOLERANCE_SECONDS).toBeGreaterThanOrEqual(3 * 86_400);
    // From the future beyond the tolerance too.
    const future = buildSignedDelivery(event(new Date(now.getTime() + 10 * 60_000)), 'whsec_test');
    await expect(verifyWebhook(future.body, future.header, 'whsec_test', { tolerance: 300 })).rejects.toMatchObject({ code: 'timestamp_out_of_tolerance' });
  });

  test('a tolerance that is NaN or negative is refused before anything (invalid_request, param tolerance); Infinity checks the signature only', async () => {
    const old = buildSignedDelivery(event(new Date(Date.now() - 30 * 86_400_000)), 'whsec_test');
    for (const tolerance of [Number.NaN, -1, -Infinity]) {
      for (const header of [old.header, 'sha256=bad']) {
        const e = await verifyWebhook(old.body, header, 'whsec_test', { tolerance }).catch((x: unknown) => x);
        expect(e).toBeInstanceOf(SpendAuthError);
        expect(e).not.toBeInstanceOf(WebhookVerificationError);
        expect(e).toMatchObject({ status: null, code: 'invalid_request', param: 'tolerance' });
      }
    }
    expect(await verifyWebhook(old.body, old.header, 'whsec_test', { tolerance: Infinity })).toMatchObject({ id: 'evt_1' });
  });

  test('a signed body that is not an event (no id, event or timestamp string) is malformed, whatever the tolerance', async () => {
    const signed = (body: string) => ({ body, header: `sha256=${hmacHex(body, 'whsec_test')}` });
    const at = new Date().toISOString();
    const bodies = [
      { event: 'authorize.denied', data: {}, timestamp: at },
      { id: 'evt_1', data: {}, timestamp: at },
      { id: 'evt_1', event: 'authorize.denied', data: {} },
      { id: 1, event: 'authorize.denied', data: {}, timestamp: at },
      { id: 'evt_1', event: 'authorize.denied', data: {}, timestamp: 1_700_000_000 },
    ];
    for (const b of bodies) {
      const { body, header } = signed(JSON.stringify(b));
      for (const tolerance of [undefined, Infinity]) {
        await expect(verifyWebhook(body, header, 'whsec_test', tolerance === undefined ? {} : { tolerance }), body).rejects.toMatchObject({ name: 'WebhookVerificationError', code: 'malformed' });
      }
    }
    const notDate = signed(JSON.stringify({ id: 'evt_1', event: 'authorize.denied', data: {}, timestamp: 'yesterday' }));
    await expect(verifyWebhook(notDate.body, notDate.header, 'whsec_test', { tolerance: Infinity })).rejects.toMatchObject({ code: 'malformed', param: 'timestamp' });
  });

  test('during a rotation: the previous secret verifies through X-Service-Signature-Previous; several secrets may be given', async () => {
    const { body, header, previousHeader } = buildSignedDelivery(event(new Date()), 'whsec_new', 'whsec_old');
    const headers = { 'x-service-signature': header, 'x-service-signature-previous': previousHeader };
    expect(await verifyWebhook(body, headers, 'whsec_old')).toMatchObject({ id: 'evt_1' });
    expect(await verifyWebhook(body, headers, 'whsec_new')).toMatchObject({ id: 'evt_1' });
    expect(await verifyWebhook(body, header, ['whsec_old', 'whsec_new'])).toMatchObject({ id: 'evt_1' });
    await expect(verifyWebhook(body, header, 'whsec_old')).rejects.toMatchObject({ code: 'signature_invalid' });
  });
});
