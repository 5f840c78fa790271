/**
 * Attack: downgrading a signed request to an unsigned one (DECISIONS §19 step 1). With the flag on,
 * stripping the signature fields, retagging the signature, or dropping the tagged member while
 * keeping another all end in `signature_required`. With the flag off a broken signature is never
 * ignored: it is `signature_invalid`, not passed as unsigned.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { send, signRaw, signWebBotAuth, signingAgent, spendOf, type SigningAgent } from '../support/agent-signing.js';

let ctx: TestContext;
let strict: SigningAgent;
let open: SigningAgent;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  const acct = await ctx.account();
  strict = await signingAgent(ctx.database.db, acct.test, { required: true });
  open = await signingAgent(ctx.database.db, acct.test);
}, 240_000);
afterAll(() => ctx?.close());

async function tampered(agent: SigningAgent, change: (h: Record<string, string>) => Record<string, string>) {
  const body = Buffer.from(JSON.stringify(spendOf(agent.agentId)));
  const headers = await signWebBotAuth({ method: 'POST', url: `${ctx.baseUrl}/v1/authorize`, headers: { 'content-type': 'application/json' }, body }, agent.ed);
  return send(ctx.baseUrl, agent.bearer, { method: 'POST', path: '/v1/authorize', headers: change(headers), body });
}

const without = (h: Record<string, string>, ...names: string[]) => Object.fromEntries(Object.entries(h).filter(([k]) => !names.includes(k)));

test.each([
  ['both signature fields stripped', (h: Record<string, string>) => without(h, 'signature', 'signature-input')],
  ['Signature-Input stripped', (h: Record<string, string>) => without(h, 'signature-input')],
  ['the tag changed', (h: Record<string, string>) => ({ ...h, 'signature-input': h['signature-input']!.replace('tag="web-bot-auth"', 'tag="other"') })],
  ['the tag removed', (h: Record<string, string>) => ({ ...h, 'signature-input': h['signature-input']!.replace(';tag="web-bot-auth"', '') })],
])('flag on, %s → signature_required', async (_name, change) => {
  const res = await tampered(strict, change);
  expect(res.status).toBe(401);
  expect(res.body.error).toMatchObject({ code: 'signature_required', param: 'Signature-Input' });
});

test('flag on, the tagged member removed while an untagged one stays → signature_required', async () => {
  const body = Buffer.from(JSON.stringify(spendOf(strict.agentId)));
  const u = { method: 'POST', url: `${ctx.baseUrl}/v1/authorize`, headers: { 'content-type': 'application/json' }, body };
  const untagged = signRaw(u, strict.ed, { label: 'plain', parameters: { tag: undefined } });
  const res = await send(ctx.baseUrl, strict.bearer, { method: 'POST', path: '/v1/authorize', headers: untagged, body });
  expect(res.body.error).toMatchObject({ code: 'signature_required' });
});

test('flag off: a broken signature is refused, not treated as unsigned', async () => {
  const res = await tampered(open, (h) => ({ ...h, signature: h.signature!.replace(/:(.)/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`) }));
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('signature_invalid');
  expect((await tampered(open, (h) => without(h, 'signature', 'signature-input'))).status).toBe(200);
});
