/**
 * Attack: a body whose strings readers disagree on. I-JSON (RFC 7493 §2.1) forbids Unicode
 * noncharacters (U+FDD0–U+FDEF, and U+xFFFE/U+xFFFF in all 17 planes) and surrogates without
 * their pair in any string; parsers, proxies and logs replace, drop or refuse them, so the vendor or
 * the metadata a log shows need not be the ones decided, and a noncharacter in a stored vendor can
 * break a reader later. Each is refused, in a member name or a value, at any depth, written raw
 * (UTF-8) or as `\u` escapes (a surrogate-pair escape for the supplementary planes): 400
 * `invalid_request` naming the value's path (or the object whose member name is at fault), nothing
 * decided. Bytes that are not UTF-8 (a surrogate encoded raw) are refused whole, never read as U+FFFD.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestContext, policyBody, type ApiResponse, type TestAccount, type TestContext } from '../support/context.js';

let ctx: TestContext;
let acct: TestAccount;
let agentId: string;

beforeAll(async () => {
  ctx = await createTestContext({ testModeRateLimit: 100_000 });
  acct = await ctx.account('growth');
  const policy = await acct.test.post('/v1/policies', policyBody({ budget_single_max: 10_000_000, budget_monthly: 100_000_000 }));
  agentId = (await acct.test.post('/v1/agents', { name: 'buyer', policy_id: policy.body.id })).body.id;
}, 120_000);
afterAll(() => ctx?.close());

/** Sends the body exactly as given: text as UTF-8, or raw bytes. */
function send(path: string, body: string | Buffer, method = 'POST'): Promise<ApiResponse> {
  return ctx.raw(path, { method, headers: { authorization: `Bearer ${acct.test.key}`, 'content-type': 'application/json' }, body: typeof body === 'string' ? body : new Uint8Array(body) });
}

const decisionsOf = async () => (await ctx.database.db.selectFrom('decisions').select('id').where('agent_id', '=', agentId).execute()).length;

function expectRefused(res: ApiResponse, param: string): void {
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', param });
}

const authorizeText = (members: string) => `{"agent_id":"${agentId}","amount":100,"currency":"USD","vendor":"shop.example",${members}}`;

/** `\uXXXX` escapes of a code point as JSON writes it: one, or a surrogate pair. */
function escaped(cp: number): string {
  const units = String.fromCodePoint(cp);
  return [...Array(units.length).keys()].map((i) => `\\u${units.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
}

/** Every noncharacter: U+FDD0–U+FDEF, then U+xFFFE and U+xFFFF of planes 0 to 16. */
const NONCHARACTERS = [
  ...Array.from({ length: 32 }, (_, i) => 0xfdd0 + i),
  ...Array.from({ length: 17 }, (_, plane) => [plane * 0x10000 + 0xfffe, plane * 0x10000 + 0xffff]).flat(),
];
const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

describe('noncharacters', () => {
  test('there are 66 of them', () => {
    expect(NONCHARACTERS).toHaveLength(66);
  });

  test.each(NONCHARACTERS.map((cp) => [hex(cp), cp]))('%s in a metadata value, raw and escaped → 400 metadata.note; nothing decided', async (_name, cp) => {
    const before = await decisionsOf();
    expectRefused(await send('/v1/authorize', authorizeText(`"metadata":{"note":"a${String.fromCodePoint(cp)}b"}`)), 'metadata.note');
    expectRefused(await send('/v1/authorize', authorizeText(`"metadata":{"note":"a${escaped(cp)}b"}`)), 'metadata.note');
    expect(await decisionsOf()).toBe(before);
  });

  test.each([
    ['the vendor, raw', `{"agent_id":"AGENT","amount":100,"currency":"USD","vendor":"shop\uFDD0.example"}`, 'vendor'],
    ['the vendor, escaped in lower case', `{"agent_id":"AGENT","amount":100,"currency":"USD","vendor":"shop\\ufffe.example"}`, 'vendor'],
    ['the vendor, U+10FFFF as a surrogate-pair escape', `{"agent_id":"AGENT","amount":100,"currency":"USD","vendor":"shop\\uDBFF\\uDFFF.example"}`, 'vendor'],
    ['a metadata member name, raw', authorizeText('"metadata":{"po\uFFFF":"A-1"}'), 'metadata'],
    ['a metadata member name, escaped (U+1FFFE)', authorizeText('"metadata":{"po\\ud83f\\udffe":"A-1"}'), 'metadata'],
    ['a member name at the top', authorizeText('"\\uFDEF":1'), 'body'],
    ['a value inside an array inside metadata', authorizeText('"metadata":{"lines":["ok",{"sku":"x\\uFFFFy"}]}'), 'metadata.lines.1.sku'],
  ])('%s → 400 naming it', async (_what, text, param) => {
    const before = await decisionsOf();
    expectRefused(await send('/v1/authorize', text.replace('AGENT', agentId)), param);
    expect(await decisionsOf()).toBe(before);
  });

  test('on every surface: a simulation request, a PATCH, a policy name, a webhook description, the quick-start authorize', async () => {
    const simulate = `{"policy":${JSON.stringify(policyBody())},"requests":[{"agent_id":"${agentId}","amount":1,"currency":"USD","vendor":"a.example"},{"agent_id":"${agentId}","amount":1,"currency":"USD","vendor":"a\\uFDD5.example"}]}`;
    expectRefused(await send('/v1/policies/simulate', simulate), 'requests.1.vendor');
    expectRefused(await send(`/v1/agents/${agentId}`, '{"name":"b\uFFFEuyer"}', 'PATCH'), 'name');
    expectRefused(await send('/v1/policies', `{"name":"p\\uFFFF","budget_monthly":1,"budget_single_max":1}`), 'name');
    expectRefused(await send('/v1/webhook-endpoints', `{"url":"https://hooks.example/x","events":["*"],"description":"d\u{10FFFE}"}`), 'description');
    expectRefused(await send('/authorize', '{"token":"dlt_x","amount":1,"merchant_name":"m\\uFDD0","merchant_category":"c"}'), 'merchant_name');
    expect((await acct.test.get(`/v1/agents/${agentId}`)).body.name).toBe('buyer');
  });

  test('their neighbours are ordinary text, and a backslash before u is no escape', async () => {
    const neighbours = [0xfdcf, 0xfdf0, 0xfffd, 0x1fffd, 0x10fffd, 0x1f600, 0xe9];
    const note = neighbours.map((cp) => String.fromCodePoint(cp)).join('');
    const raw = await send('/v1/authorize', authorizeText(`"metadata":{"note":"${note}"}`));
    expect(raw.status).toBe(200);
    expect(raw.body.metadata.note).toBe(note);
    const asEscapes = await send('/v1/authorize', authorizeText(`"metadata":{"note":"${neighbours.map(escaped).join('')}"}`));
    expect(asEscapes.status).toBe(200);
    expect(asEscapes.body.metadata.note).toBe(note);
    const literal = await send('/v1/authorize', authorizeText('"metadata":{"note":"\\\\uFFFF \\\\uFDD0"}'));
    expect(literal.status).toBe(200);
    expect(literal.body.metadata.note).toBe('\\uFFFF \\uFDD0');
  });
});

describe('surrogates without their pair', () => {
  test.each([
    ['a high one, escaped', '"\\ud800"', 'metadata.note'],
    ['a low one, escaped', '"\\udfff"', 'metadata.note'],
    ['a pair in the wrong order', '"\\udc00\\ud800"', 'metadata.note'],
  ])('%s in a value → 400', async (_what, value, param) => {
    expectRefused(await send('/v1/authorize', authorizeText(`"metadata":{"note":${value}}`)), param);
  });

  test('in a member name → 400 naming its object', async () => {
    expectRefused(await send('/v1/authorize', authorizeText('"metadata":{"\\udbff":"x"}')), 'metadata');
  });

  test('written raw, as UTF-8 bytes (ED A0 80): refused whole, never read as U+FFFD', async () => {
    const before = await decisionsOf();
    const [head, tail] = authorizeText('"metadata":{"note":"a@b"}').split('@') as [string, string];
    const body = Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(tail, 'utf8')]);
    expectRefused(await send('/v1/authorize', body), 'body');
    expect(await decisionsOf()).toBe(before);
  });

  test.each([
    ['a lone continuation byte', [0x80]],
    ['an overlong slash', [0xc0, 0xaf]],
    ['a byte that never occurs in UTF-8', [0xff]],
    ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ])('other bytes that are not UTF-8 (%s) → 400 body', async (_what, bytes) => {
    const [head, tail] = authorizeText('"metadata":{"note":"a@b"}').split('@') as [string, string];
    expectRefused(await send('/v1/authorize', Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from(bytes), Buffer.from(tail, 'utf8')])), 'body');
  });
});
