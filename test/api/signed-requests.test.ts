/**
 * DECISIONS §19 end to end: requests made with a credential bound to one agent (an agent key, a
 * vault token on quick-start authorize) are verified after the key and before validation, in nine
 * steps, the first failure winning. Signatures come from web-bot-auth 0.1.3 (Ed25519),
 * http-message-signatures 1.0.6 (P-256) and, for inputs those refuse to make, a raw builder.
 * The server's clock is injected (`clock`), so time boundaries are exact.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { agentWithPolicy, createTestContext, type TestAccount, type TestContext } from '../support/context.js';
import {
  contentDigest,
  newAgentKey,
  randomNonce,
  registerKeyDirect,
  requireSignedDirect,
  revokeKeyDirect,
  send,
  sendSigned,
  signHttpMessageSignatures,
  signRaw,
  signWebBotAuth,
  type TestAgentKey,
  type Unsigned,
} from '../support/agent-signing.js';

let ctx: TestContext;
let acct: TestAccount;
let clock = Math.floor(Date.now() / 1000);

interface Agent {
  agentId: string;
  policyId: string;
  bearer: string;
  ed: TestAgentKey;
  edId: string;
}
let open: Agent; // flag off
let strict: Agent; // flag on
let p256: TestAgentKey;

async function makeAgent(required: boolean): Promise<Agent> {
  const { agentId, policyId } = await agentWithPolicy(acct.test, { budget_monthly: 100_000_000, budget_single_max: 1_000_000 });
  if (required) await requireSignedDirect(ctx.database.db, policyId);
  const key = await acct.test.post('/v1/api-keys', { name: 'agent', role: 'agent', agent_id: agentId });
  expect(key.status).toBe(201);
  const ed = await newAgentKey('ed25519');
  const { id } = await registerKeyDirect(ctx.database.db, agentId, ed);
  return { agentId, policyId, bearer: key.body.key, ed, edId: id };
}

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000, now: () => new Date(clock * 1000) });
  acct = await ctx.account();
  open = await makeAgent(false);
  strict = await makeAgent(true);
  p256 = await newAgentKey('ecdsa-p256-sha256');
  await registerKeyDirect(ctx.database.db, open.agentId, p256);
});
afterAll(() => ctx?.close());

const spend = (a: Agent, amount = 100) => ({ agent_id: a.agentId, amount, currency: 'USD', vendor: 'shop.example' });
const authorize = (a: Agent, sign: (u: Unsigned) => Promise<Record<string, string>> | Record<string, string>, body: unknown = spend(a), headers?: Record<string, string>) =>
  sendSigned(ctx.baseUrl, a.bearer, { method: 'POST', path: '/v1/authorize', body, ...(headers ? { headers } : {}) }, sign);
const wba = (a: Agent, opts = {}) => (u: Unsigned) => signWebBotAuth(u, a.ed, { created: clock, ...opts });
const raw = (a: Agent, opts: Parameters<typeof signRaw>[2] = {}) => (u: Unsigned) =>
  signRaw(u, a.ed, { ...opts, parameters: { created: clock, expires: clock + 60, ...opts.parameters } });
const expectError = (res: { status: number; body: any }, code: string, param = 'Signature-Input') => {
  expect(res.status, JSON.stringify(res.body)).toBe(401);
  expect(res.body.error).toMatchObject({ code, param });
};

describe('step 1: which requests are checked, and the flag', () => {
  test('flag on, unsigned: 401 signature_required on every path the agent key calls (authorize, decision reads, capture, own key, token verify)', async () => {
    const signed = await authorize(strict, wba(strict));
    expect(signed.status, signed.text).toBe(200);
    const decision = signed.body.decision_id as string;
    expect(decision).toMatch(/^dec_/);
    const paths: [string, string, unknown?][] = [
      ['POST', '/v1/authorize', spend(strict)],
      ['GET', `/v1/decisions/${decision}`],
      ['POST', `/v1/decisions/${decision}/capture`, { amount: 100 }],
      ['GET', '/v1/api-keys/self'],
      ['POST', '/v1/authorization-tokens/verify', { token: 'x' }],
      ['GET', '/v1/no-such-path'],
    ];
    for (const [method, path, body] of paths) {
      const res = await send(ctx.baseUrl, strict.bearer, { method, path, body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)) });
      expectError(res, 'signature_required');
    }
  });

  test('flag on: a signature tagged other than web-bot-auth counts as none', async () => {
    expectError(await authorize(strict, raw(strict, { parameters: { tag: 'other' } })), 'signature_required');
  });

  test('flag off: unsigned passes; the same agent signed passes and is recorded on the caller', async () => {
    expect((await send(ctx.baseUrl, open.bearer, { method: 'POST', path: '/v1/authorize', body: Buffer.from(JSON.stringify(spend(open))) })).status).toBe(200);
    expect((await authorize(open, wba(open))).status).toBe(200);
  });

  test('admin and reviewer keys are never checked: a broken signature on an admin request is ignored', async () => {
    const res = await sendSigned(ctx.baseUrl, acct.test.key, { method: 'GET', path: '/v1/agents' }, (u) => ({ ...u.headers, 'signature-input': 'garbage((', signature: 'x' }));
    expect(res.status).toBe(200);
    expect((await acct.test.post('/v1/authorize', spend(strict))).status).toBe(200);
  });

  test('flag on, the P-256 key signed by http-message-signatures 1.0.6 passes', async () => {
    const res = await authorize(open, (u) => signHttpMessageSignatures(u, p256, { created: clock }));
    expect(res.status, res.text).toBe(200);
  });
});

describe('quick-start POST /authorize with a vault token', () => {
  let token: string;
  let agent: Agent;
  beforeAll(async () => {
    agent = await makeAgent(false);
    const vault = await acct.test.post('/vaults', { name: 'v', agent_id: agent.agentId, daily_limit: 1000, max_single_transaction: 500 });
    expect(vault.status, vault.text).toBe(201);
    token = vault.body.token;
    const policyId = (await ctx.database.db.selectFrom('agents').select('policy_id').where('id', '=', agent.agentId).executeTakeFirstOrThrow()).policy_id!;
    await requireSignedDirect(ctx.database.db, policyId);
  });
  const body = () => ({ token, amount: 1, merchant_name: 'shop.example' });

  test("the vault's agent's flag: unsigned → signature_required; signed with the agent's key → 200", async () => {
    expectError(await send(ctx.baseUrl, acct.test.key, { method: 'POST', path: '/authorize', body: Buffer.from(JSON.stringify(body())) }), 'signature_required');
    const res = await sendSigned(ctx.baseUrl, acct.test.key, { method: 'POST', path: '/authorize', body: body() }, (u) => signWebBotAuth(u, agent.ed, { created: clock }));
    expect(res.status, res.text).toBe(200);
  });

  test("another agent's key on the vault's request → signature_key_unknown; an unknown token is the route's 401 unauthorized", async () => {
    expectError(await sendSigned(ctx.baseUrl, acct.test.key, { method: 'POST', path: '/authorize', body: body() }, (u) => signWebBotAuth(u, open.ed, { created: clock })), 'signature_key_unknown');
    const unknown = await send(ctx.baseUrl, acct.test.key, { method: 'POST', path: '/authorize', body: Buffer.from(JSON.stringify({ ...body(), token: `dlt_${'x'.repeat(40)}` })) });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe('unauthorized');
  });
});

describe('step 2: the fields are RFC 8941 dictionaries with the same labels', () => {
  test('a label only in Signature-Input', async () => {
    const res = await authorize(open, async (u) => {
      const h = await signWebBotAuth(u, open.ed, { created: clock });
      return { ...h, 'signature-input': `${h['signature-input']}, other=("@method");tag="web-bot-auth"` };
    });
    expectError(res, 'signature_invalid');
  });
  test('Signature-Agent as an sf-string (the draft v1 form)', async () => {
    expectError(await authorize(open, wba(open), spend(open), { 'signature-agent': '"https://agent.example"' }), 'signature_invalid', 'Signature-Agent');
  });
  test('a label twice', async () => {
    const res = await authorize(open, async (u) => {
      const h = await signWebBotAuth(u, open.ed, { created: clock });
      return { ...h, signature: `${h.signature}, ${h.signature}`, 'signature-input': `${h['signature-input']}, ${h['signature-input']}` };
    });
    expectError(res, 'signature_invalid');
  });
  test('Signature not a byte sequence', async () => {
    const res = await authorize(open, async (u) => ({ ...(await signWebBotAuth(u, open.ed, { created: clock })), signature: 'sig1="abc"' }));
    expectError(res, 'signature_invalid', 'Signature');
  });
  test('a Signature-Input that does not parse is invalid, not unsigned (flag on or off)', async () => {
    for (const a of [open, strict]) {
      const res = await authorize(a, async (u) => ({ ...(await signWebBotAuth(u, a.ed, { created: clock })), 'signature-input': 'sig1=("@method";tag="web-bot-auth"' }));
      expectError(res, 'signature_invalid');
    }
  });
});

describe('step 3: the key', () => {
  test("agent B's key with agent A's bearer key → signature_key_unknown", async () => {
    expectError(await authorize(open, (u) => signWebBotAuth(u, strict.ed, { created: clock })), 'signature_key_unknown');
  });
  test('a revoked key → signature_key_unknown; a key never registered → signature_key_unknown', async () => {
    const a = await makeAgent(false);
    expect((await authorize(a, wba(a))).status).toBe(200);
    await revokeKeyDirect(ctx.database.db, a.edId);
    expectError(await authorize(a, wba(a)), 'signature_key_unknown');
    const stranger = await newAgentKey();
    expectError(await authorize(open, (u) => signWebBotAuth(u, stranger, { created: clock })), 'signature_key_unknown');
  });
  test('the first tagged label with a key of the agent is the one checked', async () => {
    const stranger = await newAgentKey();
    const res = await authorize(open, (u) => {
      const first = signRaw(u, stranger, { label: 'a', parameters: { created: clock, expires: clock + 60 } });
      const second = signRaw(u, open.ed, { label: 'b', parameters: { created: clock, expires: clock + 60 } });
      return { ...first, signature: `${first.signature}, ${second.signature}`, 'signature-input': `${first['signature-input']}, ${second['signature-input']}` };
    });
    expect(res.status, res.text).toBe(200);
  });
  test('a key registered after the cache was filled verifies at once (one reload on an unknown keyid)', async () => {
    expect((await authorize(open, wba(open))).status).toBe(200);
    const later = await newAgentKey();
    await registerKeyDirect(ctx.database.db, open.agentId, later);
    expect((await authorize(open, (u) => signWebBotAuth(u, later, { created: clock }))).status).toBe(200);
  });

  describe('a directory-bound key', () => {
    let key: TestAgentKey;
    let dirId: string;
    const origin = 'https://agent.example';
    beforeAll(async () => {
      key = await newAgentKey();
      const agent = await ctx.database.db.selectFrom('agents').select(['account_id', 'livemode']).where('id', '=', open.agentId).executeTakeFirstOrThrow();
      dirId = `akd_${Date.now()}`;
      const now = new Date();
      await ctx.database.db
        .insertInto('agent_key_directories')
        .values({ id: dirId, account_id: agent.account_id, livemode: agent.livemode, origin, thumbprints: [key.thumbprint], fetched_at: now, expires_at: now, last_attempt_at: null, last_error: null, created_at: now })
        .execute();
      await registerKeyDirect(ctx.database.db, open.agentId, key, { directoryId: dirId });
    });
    const signedWithAgent = (member: string | undefined) => (u: Unsigned) => {
      const headers = member === undefined ? u.headers : { ...u.headers, 'signature-agent': `sig1="${member}"` };
      const comps = ['@method', '@authority', '@path', 'content-digest', ...(member === undefined ? [] : [{ name: 'signature-agent', parameters: { key: 'sig1' } }])];
      return signRaw({ ...u, headers }, key, { components: comps, parameters: { created: clock, expires: clock + 60 } });
    };
    test('verifies when the covered Signature-Agent member is its origin', async () => {
      const res = await authorize(open, signedWithAgent(`${origin}/`));
      expect(res.status, res.text).toBe(200);
    });
    test('no Signature-Agent member, or another origin → signature_key_unknown', async () => {
      expectError(await authorize(open, signedWithAgent(undefined)), 'signature_key_unknown');
      expectError(await authorize(open, signedWithAgent('https://other.example')), 'signature_key_unknown');
    });
  });
});

describe('step 4: parameters', () => {
  type P = Record<string, string | number | undefined>;
  const cases: [string, (now: number) => P, number][] = [
    ['no created', () => ({ created: undefined }), 401],
    ['no expires', () => ({ expires: undefined }), 401],
    ['no nonce', () => ({ nonce: undefined }), 401],
    ['a nonce of 15 characters', () => ({ nonce: randomNonce().slice(0, 15) }), 401],
    ['a nonce of 16 characters', () => ({ nonce: randomNonce().slice(0, 16) }), 200],
    ['a nonce of 256 characters', () => ({ nonce: randomNonce().padEnd(256, 'n') }), 200],
    ['a nonce of 257 characters', () => ({ nonce: randomNonce().padEnd(257, 'n') }), 401],
    ['a lifetime of 300 s', (now) => ({ created: now, expires: now + 300 }), 200],
    ['a lifetime of 301 s', (now) => ({ created: now, expires: now + 301 }), 401],
    ['expires before created', (now) => ({ created: now, expires: now - 1 }), 401],
    ['created 30 s ahead', (now) => ({ created: now + 30, expires: now + 90 }), 200],
    ['created 31 s ahead', (now) => ({ created: now + 31, expires: now + 91 }), 401],
  ];
  test.each(cases)('%s', async (_name, over, status) => {
    const res = await authorize(open, raw(open, { parameters: over(clock) }));
    if (status === 200) expect(res.status, res.text).toBe(200);
    else expectError(res, 'signature_invalid');
  });
  test('no keyid: no key is named → signature_key_unknown (step 3 chooses by keyid)', async () => {
    expectError(await authorize(open, raw(open, { parameters: { keyid: undefined } })), 'signature_key_unknown');
  });
  test("an alg other than the key's", async () => {
    expectError(await authorize(open, raw(open, { algorithm: 'ecdsa-p256-sha256', parameters: { alg: 'ecdsa-p256-sha256' } })), 'signature_invalid');
  });
});

describe('step 5: coverage', () => {
  const comps = (list: (string | { name: string; parameters: Record<string, string> })[]) => raw(open, { components: list });
  test.each([
    ['no @method', ['@authority', '@path', 'content-digest'], 401],
    ['@authority without @path', ['@method', '@authority', 'content-digest'], 401],
    ['@path without @authority', ['@method', '@path', 'content-digest'], 401],
    ['@target-uri instead of both', ['@method', '@target-uri', 'content-digest'], 200],
    ['a body without content-digest', ['@method', '@authority', '@path'], 401],
  ] as const)('%s', async (_n, list, status) => {
    const res = await authorize(open, comps([...list]));
    if (status === 200) expect(res.status, res.text).toBe(200);
    else expectError(res, 'signature_invalid');
  });
  test('a query not covered by @query', async () => {
    const get = (components: string[]) =>
      sendSigned(ctx.baseUrl, open.bearer, { method: 'GET', path: '/v1/api-keys/self?x=1' }, (u) => signRaw(u, open.ed, { components, parameters: { created: clock, expires: clock + 60 } }));
    expectError(await get(['@method', '@authority', '@path']), 'signature_invalid');
    expect((await get(['@method', '@authority', '@path', '@query'])).status).toBe(200);
    expect((await get(['@method', '@target-uri'])).status).toBe(200);
  });
  test('a Signature-Agent header: its member (;key="<label>") or the whole field must be covered', async () => {
    const withAgent = (components: (string | { name: string; parameters: Record<string, string> })[]) => (u: Unsigned) =>
      signRaw({ ...u, headers: { ...u.headers, 'signature-agent': 'sig1="https://agent.example", other="https://other.example"' } }, open.ed, { components, parameters: { created: clock, expires: clock + 60 } });
    const base = ['@method', '@authority', '@path', 'content-digest'];
    expectError(await authorize(open, withAgent(base)), 'signature_invalid');
    expectError(await authorize(open, withAgent([...base, { name: 'signature-agent', parameters: { key: 'other' } }])), 'signature_invalid');
    expect((await authorize(open, withAgent([...base, { name: 'signature-agent', parameters: { key: 'sig1' } }]))).status).toBe(200);
    // The whole field, as web-bot-auth 0.1.3 signs it.
    const res = await authorize(open, wba(open), spend(open), { 'signature-agent': 'sig1="https://agent.example"' });
    expect(res.status, res.text).toBe(200);
  });
});

describe('step 6: Content-Digest of the body as received', () => {
  test('a digest that does not match the body → param Content-Digest', async () => {
    expectError(await authorize(open, wba(open), spend(open), { 'content-digest': contentDigest('{}') }), 'signature_invalid', 'Content-Digest');
  });
  test('sha-512 passes; only an md5 member fails', async () => {
    const body = Buffer.from(JSON.stringify(spend(open)));
    expect((await authorize(open, wba(open), body, { 'content-digest': contentDigest(body, 'sha-512') })).status).toBe(200);
    expectError(await authorize(open, wba(open), body, { 'content-digest': 'md5=:AAAAAAAAAAAAAAAAAAAAAA==:' }), 'signature_invalid', 'Content-Digest');
  });
  test('gzip: the digest over the gzip bytes passes, over the inflated JSON fails', async () => {
    const json = Buffer.from(JSON.stringify(spend(open)));
    const gz = gzipSync(json);
    const ok = await authorize(open, wba(open), gz, { 'content-encoding': 'gzip' });
    expect(ok.status, ok.text).toBe(200);
    expectError(await authorize(open, wba(open), gz, { 'content-encoding': 'gzip', 'content-digest': contentDigest(json) }), 'signature_invalid', 'Content-Digest');
  });
});

describe('step 7: the signature', () => {
  test('one byte flipped', async () => {
    const res = await authorize(open, async (u) => {
      const h = await signWebBotAuth(u, open.ed, { created: clock });
      const bytes = Buffer.from(/:(.*):/.exec(h.signature!)![1]!, 'base64');
      bytes[5]! ^= 1;
      return { ...h, signature: `sig1=:${bytes.toString('base64')}:` };
    });
    expectError(res, 'signature_invalid');
  });
  test('a signature made for another path', async () => {
    const res = await authorize(open, (u) => signWebBotAuth({ ...u, url: `${ctx.baseUrl}/v1/authorize-other` }, open.ed, { created: clock }));
    expectError(res, 'signature_invalid');
  });
});

describe('step 8: expiry, with 30 s of skew', () => {
  test('now = expires + 30 passes; expires + 31 → signature_expired', async () => {
    const at = clock;
    try {
      clock = at + 90;
      expect((await authorize(open, (u) => signRaw(u, open.ed, { parameters: { created: at, expires: at + 60 } }))).status).toBe(200);
      clock = at + 91;
      expectError(await authorize(open, (u) => signRaw(u, open.ed, { parameters: { created: at, expires: at + 60 } })), 'signature_expired');
    } finally {
      clock = at;
    }
  });
});

describe('step 9: nonces', () => {
  test('the same signed request twice → signature_replayed; the nonce is kept until expires + 30 s', async () => {
    const first = await authorize(open, wba(open));
    expect(first.status).toBe(200);
    const again = await send(ctx.baseUrl, open.bearer, { method: 'POST', path: '/v1/authorize', headers: first.sent.headers, body: first.sent.body });
    expectError(again, 'signature_replayed');
    const nonce = /nonce="([^"]+)"/.exec(first.sent.headers['signature-input']!)![1]!;
    const row = await ctx.database.db.selectFrom('signature_nonces').selectAll().where('nonce', '=', nonce).executeTakeFirstOrThrow();
    expect(row.thumbprint).toBe(open.ed.thumbprint);
    expect(row.expires_at.getTime()).toBe((clock + 60 + 30) * 1000);
  });

  test('a 401 leaves the Idempotency-Key free: a fresh signature then gets the stored answer', async () => {
    const idem = { 'idempotency-key': `k-${randomNonce()}` };
    const body = spend(open, 321);
    expectError(await authorize(open, wba(open), body, { ...idem, 'content-digest': contentDigest('{}') }), 'signature_invalid', 'Content-Digest');
    const first = await authorize(open, wba(open), body, idem);
    expect(first.status).toBe(200);
    const retry = await authorize(open, wba(open), body, idem);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.decision_id).toBe(first.body.decision_id);
    expect(first.body.decision_id).toMatch(/^dec_/);
  });

  test("the key's last_used_at moves", async () => {
    const a = await makeAgent(false);
    expect((await authorize(a, wba(a))).status).toBe(200);
    await expect.poll(async () => (await ctx.database.db.selectFrom('agent_keys').select('last_used_at').where('id', '=', a.edId).executeTakeFirstOrThrow()).last_used_at).not.toBeNull();
  });
});

describe('first failure wins', () => {
  test('an unknown key and a bad digest → signature_key_unknown', async () => {
    const stranger = await newAgentKey();
    expectError(await authorize(open, (u) => signWebBotAuth(u, stranger, { created: clock }), spend(open), { 'content-digest': contentDigest('{}') }), 'signature_key_unknown');
  });
  test('a bad digest and a bad signature → Content-Digest', async () => {
    const res = await authorize(open, async (u) => ({ ...(await signWebBotAuth(u, open.ed, { created: clock })), 'content-digest': contentDigest('{}') }));
    expectError(res, 'signature_invalid', 'Content-Digest');
  });
  test('a bad signature and expired → signature_invalid', async () => {
    const at = clock;
    try {
      const res = await authorize(open, (u) => {
        const h = signRaw(u, open.ed, { parameters: { created: at - 400, expires: at - 340 } });
        return { ...h, signature: h.signature!.replace(/:(.)/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`) };
      });
      expectError(res, 'signature_invalid');
    } finally {
      clock = at;
    }
  });
  test('replayed and expired → signature_expired', async () => {
    const at = clock;
    try {
      const first = await authorize(open, wba(open));
      expect(first.status).toBe(200);
      clock = at + 200;
      expectError(await send(ctx.baseUrl, open.bearer, { method: 'POST', path: '/v1/authorize', headers: first.sent.headers, body: first.sent.body }), 'signature_expired');
    } finally {
      clock = at;
    }
  });
});
