import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { evaluate } from '../../src/policies/evaluate.js';
import { agentWithPolicy, createTestContext, policyBody, type TestAccount, type TestContext } from '../support/context.js';
import { evaluatedPolicy } from '../support/policies.js';

// Attack: a customer key spells a listed host another way, so the deny- or allowlist (and the
// duplicate-spend rule) no longer recognises it while the rail still pays the same host.

let ctx: TestContext;
let acct: TestAccount;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 10_000 });
  acct = await ctx.account('growth');
});
afterAll(() => ctx?.close());

const agentWith = (policy: Record<string, unknown>) => agentWithPolicy(acct.test, policy);

const spend = (agentId: string, vendor: string, over: Record<string, unknown> = {}) =>
  acct.test.post('/v1/authorize', { agent_id: agentId, amount: 1_000, currency: 'USD', vendor, ...over });

describe('a denylisted host spelled another way is still denied', () => {
  test.each([
    ['evil.com', 'https://evil.com:/'],
    ['evil.com', 'https:evil.com'],
    ['evil.com', '//evil.com'],
    ['evil.com', 'https://evil.com\\@good.example'],
    ['evil.com', 'evil.com?@good.example'],
    ['evil.com', 'evil.com#@good.example'],
    ['evil.com', 'evil%2Ecom'],
    ['evil.com', 'ｅｖｉｌ.com'],
    ['evil.com', 'ｅｖｉｌ．ｃｏｍ'],
    ['evil.com', 'evil。com'],
    ['evil.com', 'evil｡com'],
    ['evil.com', 'EVIL.COM.'],
    ['evil.com', 'https://user:pw@EVIL.com:8443/pay?x=1#y'],
    ['evil.com', 'HTTPS://WWW.EVIL.COM/'],
    ['evil.com', 'https:\\\\evil.com'],
    ['evil.com', 'pay.%65vil.com'],
    ['xn--caf-dma.com', 'café.com'],
    ['xn--caf-dma.com', 'CAFÉ.COM'],
    ['café.com', 'xn--caf-dma.com'],
    ['127.0.0.1', '0x7f.1'],
    ['127.0.0.1', '2130706433'],
    ['127.0.0.1', '0177.0.0.1'],
    ['127.0.0.1', '127.1'],
    ['127.0.0.1', 'https://0x7F000001/'],
    ['10.1.2.3', '0xa.0x1.0x2.0x3'],
  ])('denylist [%s], vendor %s → denied', async (listed, vendor) => {
    const { agentId } = await agentWith({ vendor_denylist: [listed] });
    const res = await spend(agentId, vendor);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ decision: 'denied', reason_code: 'policy_denied' });
    expect(res.body).not.toHaveProperty('authorization_token');
  });

  test('an allowlist of amazon.com holds evil.com#@amazon.com (the host is evil.com)', async () => {
    const { agentId } = await agentWith({ vendor_allowlist: ['amazon.com'] });
    for (const vendor of ['evil.com#@amazon.com', 'evil.com?@amazon.com', 'https://evil.com\\@amazon.com', 'https://amazon.com@evil.com/']) {
      const res = await spend(agentId, vendor);
      expect(res.status).toBe(200);
      expect(res.body, vendor).toMatchObject({ decision: 'held', reason_code: 'approval_required' });
    }
    // Real spellings of the listed host still pass the allowlist.
    for (const vendor of ['https://www.AMAZON.com/gp/cart', 'ａｍａｚｏｎ.com', 'aws.amazon.com']) {
      expect((await spend(agentId, vendor)).body, vendor).toMatchObject({ decision: 'approved' });
    }
  });

  test('vendor names that are not domains compare after NFKC, case folding and whitespace collapsing', async () => {
    const { agentId } = await agentWith({ vendor_denylist: ['Acme  Corp'] });
    for (const vendor of ['acme corp', 'ＡＣＭＥ CORP', ' Acme\u00a0\u3000Corp ']) {
      expect((await spend(agentId, vendor)).body, vendor).toMatchObject({ decision: 'denied', reason_code: 'policy_denied' });
    }
    expect((await spend(agentId, 'Acme Corporation')).body).toMatchObject({ decision: 'approved' });
  });
});

describe('the duplicate-spend rule compares the same normal form', () => {
  test('a second spend at evil.com spelled differently is held as a suspected duplicate', async () => {
    const { agentId } = await agentWith({ duplicate_window_seconds: 300 });
    expect((await spend(agentId, 'evil.com')).body).toMatchObject({ decision: 'approved' });
    for (const vendor of ['https://EVIL.com:/', 'ｅｖｉｌ。com', 'evil%2Ecom']) {
      expect((await spend(agentId, vendor)).body, vendor).toMatchObject({ decision: 'held', reason_code: 'duplicate_suspected' });
    }
  });
});

describe('vendors that cannot be normalized are refused, never approved', () => {
  test.each([
    ['a NUL character', 'evil\u0000.com'],
    ['a tab inside the host', 'ev\til.com'],
    ['a line feed', 'evil.com\nx'],
    ['a C1 control character', 'evil\u0085.com'],
    ['a port that is not a number', 'evil.com:abc'],
    ['a port out of range', 'https://evil.com:99999/'],
    ['an empty host', 'https://'],
    ['an unclosed IPv6 literal', 'https://[::1/'],
    ['a forbidden host character', 'evil<.com'],
    ['an invalid percent-escape in the host', 'evil%zz.com'],
    ['an invalid punycode label', 'xn--a.com'],
  ])('%s → 400 invalid_request, param vendor', async (_name, vendor) => {
    const { agentId } = await agentWith({ vendor_allowlist: ['good.example'] });
    const res = await spend(agentId, vendor);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'vendor' });
    // Nothing was written: the agent has no decision.
    const rows = await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute();
    expect(rows).toEqual([]);
  });
});

describe('list entries are normalized when a policy is saved', () => {
  test('café.com and xn--caf-dma.com are one entry; spellings collapse to the host', async () => {
    const res = await acct.test.post('/v1/policies', policyBody({ vendor_denylist: ['café.com', 'xn--caf-dma.com', 'https://WWW.Evil.com:443/x', 'ｅｖｉｌ。com', 'Acme  Corp'] }));
    expect(res.status).toBe(201);
    expect(res.body.vendor_denylist).toEqual(['xn--caf-dma.com', 'evil.com', 'acme corp']);
    const patched = await acct.test.patch(`/v1/policies/${res.body.id}`, { vendor_allowlist: ['0x7f.1', 'AMAZON.com.'] });
    expect(patched.status).toBe(200);
    expect(patched.body.vendor_allowlist).toEqual(['127.0.0.1', 'amazon.com']);
  });

  test.each([
    ['vendor_denylist', { vendor_denylist: ['fine.example', 'evil.com:abc'] }, 'vendor_denylist.1'],
    ['vendor_allowlist', { vendor_allowlist: ['bad\u0007.example'] }, 'vendor_allowlist.0'],
  ])('an entry of %s that cannot be normalized → 400 naming the list, nothing saved', async (_list, lists, param) => {
    const before = await ctx.database.db.selectFrom('policies').select('id').where('account_id', '=', acct.id).execute();
    const res = await acct.test.post('/v1/policies', policyBody(lists));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
    const after = await ctx.database.db.selectFrom('policies').select('id').where('account_id', '=', acct.id).execute();
    expect(after.length).toBe(before.length);
    const { policyId } = await agentWith({});
    const patch = await acct.test.patch(`/v1/policies/${policyId}`, lists);
    expect(patch.status).toBe(400);
    expect(patch.body.error).toMatchObject({ code: 'invalid_request', param });
  });

  test('a policy stored before normalization (raw entries in the row) is still enforced', async () => {
    const { agentId, policyId } = await agentWith({});
    await sql`update policies set vendor_denylist = ${JSON.stringify(['ＥＶＩＬ。com', 'https://Café.com/'])}::jsonb where id = ${policyId}`.execute(ctx.database.db);
    expect((await spend(agentId, 'evil.com')).body).toMatchObject({ decision: 'denied', reason_code: 'policy_denied' });
    expect((await spend(agentId, 'xn--caf-dma.com')).body).toMatchObject({ decision: 'denied', reason_code: 'policy_denied' });
  });
});

describe('the quick-start surface and the policy simulator use the same normalizer', () => {
  test('merchant_name spelled another way is denied by the vault policy; a bad one is 400 merchant_name', async () => {
    const agent = await acct.test.post('/agents', { name: 'shopper', agent_type: 'assistant' });
    const vault = await acct.test.post('/vaults', { name: 'Shop', agent_id: agent.body.id, daily_limit: 100, max_single_transaction: 40 });
    expect(vault.status).toBe(201);
    await acct.test.patch(`/v1/policies/${vault.body.policy_id}`, { vendor_denylist: ['evil.com'] });
    const denied = await acct.test.post('/authorize', { token: vault.body.token, amount: 1, merchant_name: 'ｅｖｉｌ。com' });
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ authorized: false, status: 'denied', reason_code: 'policy_denied' });
    const bad = await acct.test.post('/authorize', { token: vault.body.token, amount: 1, merchant_name: 'evil\u0000.com' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'merchant_name' });
  });

  test('a simulated request spelled another way would be denied; a bad vendor is 400', async () => {
    const { agentId } = await agentWith({});
    const res = await acct.test.post('/v1/policies/simulate', {
      policy: policyBody({ vendor_denylist: ['evil.com'] }),
      requests: [{ agent_id: agentId, amount: 100, currency: 'USD', vendor: 'https:evil.com' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.results[0].would_be).toMatchObject({ decision: 'denied', reason_code: 'policy_denied' });
    const bad = await acct.test.post('/v1/policies/simulate', {
      policy: policyBody({ vendor_denylist: ['evil.com'] }),
      requests: [{ agent_id: agentId, amount: 100, currency: 'USD', vendor: 'evil.com:abc' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', param: 'requests.0.vendor' });
    const badList = await acct.test.post('/v1/policies/simulate', {
      policy: policyBody({ vendor_denylist: ['evil.com:abc'] }),
      requests: [{ agent_id: agentId, amount: 100, currency: 'USD', vendor: 'evil.com' }],
    });
    expect(badList.status).toBe(400);
    expect(badList.body.error).toMatchObject({ code: 'invalid_request', param: 'policy.vendor_denylist.0' });
  });
});

// ---- Property: any spelling a URL parser maps to a denylisted host is never approved. ----

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
const host = fc.tuple(label, fc.constantFrom('com', 'net', 'example', 'io')).map(([a, tld]) => `${a}.${tld}`);

const FULL_WIDTH_OFFSET = 0xfee0;
const fullWidth = (c: string) => (/[a-z0-9]/i.test(c) ? String.fromCharCode(c.charCodeAt(0) + FULL_WIDTH_OFFSET) : c);
const percent = (c: string) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** One spelling of `h`: each character possibly upper-cased, full-width or percent-escaped; dots possibly ideographic. */
const spellingOf = (h: string) =>
  fc
    .tuple(
      fc.array(fc.constantFrom('plain', 'upper', 'full', 'percent'), { minLength: h.length, maxLength: h.length }),
      fc.constantFrom('.', '。', '．', '｡'),
      fc.constantFrom('', 'https://', 'HTTPS://', 'http://', 'https:', '//', 'https:\\\\', 'https://user:pw@'),
      fc.constantFrom('', ':', ':443', ':8080', '.'),
      fc.constantFrom('', '/', '/path', '?@good.example', '#@good.example', '\\@good.example', '/x?y#z'),
    )
    .map(([styles, dot, prefix, port, suffix]) => {
      const body = [...h]
        .map((c, i) => {
          if (c === '.') return dot;
          const style = styles[i];
          if (style === 'upper') return c.toUpperCase();
          if (style === 'full') return fullWidth(c);
          if (style === 'percent') return percent(c);
          return c;
        })
        .join('');
      // A bare "host:" is a scheme to a URL parser; the port forms are spelled with a scheme.
      const withPort = port.startsWith(':') && prefix === '' ? '' : port;
      return `${prefix}${body}${withPort}${suffix}`;
    });

/** What a WHATWG URL parser makes of the spelling (https:// prefixed when it names no scheme). */
function urlHost(spelling: string): string | undefined {
  try {
    const href = /^https?:/i.test(spelling) ? spelling : /^[/\\]{2}/.test(spelling) ? `https:${spelling}` : `https://${spelling}`;
    return new URL(href).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

describe('property: a denylisted host is never approved, however it is spelled', () => {
  const spelled = host.chain((h) => spellingOf(h).map((s) => ({ h, s }))).filter(({ h, s }) => urlHost(s) === h);

  test('evaluate never approves a spelling the URL parser maps to a denylisted host', () => {
    fc.assert(
      fc.property(spelled, ({ h, s }) => {
        const outcome = evaluate({
          agent: { kyc_status: 'verified' },
          policy: evaluatedPolicy({ vendor_denylist: [h] }),
          request: { amount: 100, currency: 'USD', vendor: s, category: null },
          spend: { month: { approved: 0, reserved: 0 }, day: { approved: 0, reserved: 0 } },
        });
        expect(outcome.decision).not.toBe('approved');
      }),
      { numRuns: 2_000 },
    );
  });

  test('POST /v1/authorize never approves one (or rejects it as invalid)', async () => {
    const { agentId, policyId } = await agentWith({});
    await fc.assert(
      fc.asyncProperty(spelled, async ({ h, s }) => {
        const saved = await acct.test.patch(`/v1/policies/${policyId}`, { vendor_denylist: [h] });
        expect(saved.status).toBe(200);
        const res = await spend(agentId, s, { amount: 1 });
        expect([200, 400]).toContain(res.status);
        if (res.status === 200) expect(res.body.decision, s).not.toBe('approved');
      }),
      { numRuns: 60 },
    );
  });
});
