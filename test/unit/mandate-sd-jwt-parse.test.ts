/**
 * Taking a presentation apart (DECISIONS §20 step 1 and the structural half of step 2): a credential
 * we issue, closed with `closeMandate`, reads back as what was issued and closed; every structural
 * fault is `invalid_credential`; a foreign `vct` or a longer chain is `mandates_not_supported`, and
 * wins wherever it can be told; `reference` is the SHA-256 of the closed JWT whenever there is one.
 */
import fs from 'node:fs';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import { describe, expect, test } from 'vitest';
import { closeMandate, type CloseMandateOptions } from '../../src/client/mandate-close.js';
import { buildOpenMandate, issueCredential } from '../../src/mandates/credential.js';
import { CLOSED_VCT, MAX_DISCLOSURES, OPEN_VCT } from '../../src/mandates/mandate-deps.js';
import { mandateKeysFromJwks, p256Thumbprint, signEs256, verifyEs256 } from '../../src/mandates/mandate-signing-keys.js';
import { parsePresentation, sha256B64url, type ParseResult } from '../../src/mandates/sd-jwt-parse.js';

const readJwk = (file: string) => JSON.parse(fs.readFileSync(new URL(`../fixtures/ap2/${file}`, import.meta.url), 'utf8')) as JWK & { x: string; y: string; d: string };
const mandateKey = readJwk('mandate-signing-key.json');
const keys = mandateKeysFromJwks([mandateKey]);
const agent = readJwk('agent-key.json');
const agentKey: KeyObject = createPrivateKey({ key: agent, format: 'jwk' });
const T = 1_795_790_000;
const HASH = 'c'.repeat(43);
const TXN = 't'.repeat(43);

const open = buildOpenMandate(
  {
    currency: 'USD',
    amountMax: 5000,
    payees: [
      { id: 'M-1', name: 'Cat Store', website: 'https://cats.example' },
      { id: 'M-2', name: 'Dog Store' },
    ],
    paymentInstruments: [{ id: 'pi_1', type: 'card' }],
    budget: 12_000,
    recurrence: { frequency: 'MONTHLY', max_occurrences: 3 },
    openCheckoutHash: HASH,
  },
  { kty: 'EC', crv: 'P-256', x: agent.x, y: agent.y },
  T,
  T + 3600,
);
const credential = await issueCredential(keys, { iss: 'gca_issuer', jti: 'mdt_test', iat: T, exp: T + 3600 }, open);
const closing: CloseMandateOptions = {
  agentJwk: agent,
  transaction_id: TXN,
  payee: { id: 'M-1', name: 'Cat Store', website: 'https://cats.example' },
  payment_amount: { amount: 2500, currency: 'USD' },
  payment_instrument: { id: 'pi_1', type: 'card' },
  aud: 'gca_issuer',
  nonce: 'nonce-1',
  now: () => new Date(T * 1000 + 5000),
};
const presentation = await closeMandate(credential, closing);

// Hand-built parts, for what neither our issuer nor closeMandate would ever write.
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const disclosure = (value: unknown[]) => b64(JSON.stringify(value));
const ref = (d: string) => ({ '...': sha256B64url(d) });
function signed(header: unknown, payload: unknown, key: KeyObject, raw?: { payload?: string }): string {
  const signingInput = `${b64(JSON.stringify(header))}.${b64(raw?.payload ?? JSON.stringify(payload))}`;
  return `${signingInput}.${signEs256(key, signingInput)}`;
}
const openDisclosure = (value: Record<string, unknown> = { vct: OPEN_VCT, constraints: [], cnf: open.cnf, iat: T, exp: T + 3600 }) => disclosure(['salt-open', value]);
const closedDisclosure = (value: Record<string, unknown> = { vct: CLOSED_VCT, transaction_id: TXN }) => disclosure(['salt-closed', value]);
/** `jwt~d1~…~` of the open credential, built by hand. */
function openPart(o: { payload?: Record<string, unknown>; disclosures?: string[]; raw?: string } = {}): string {
  const ds = o.disclosures ?? [openDisclosure()];
  const payload = o.payload ?? { iss: 'gca_issuer', jti: 'mdt_x', iat: T, exp: T + 3600, _sd_alg: 'sha-256', delegate_payload: [ref(ds[ds.length - 1]!)] };
  const jwt = signed({ alg: 'ES256', typ: 'mandate+sd-jwt', kid: 'test-mandate-key-1' }, payload, keys.current.privateKey, { ...(o.raw ? { payload: o.raw } : {}) });
  return `${jwt}~${ds.map((d) => `${d}~`).join('')}`;
}
/** `jwt~d1~…~` of a closed part, built by hand. */
function closedPart(o: { payload?: Record<string, unknown>; disclosures?: string[] } = {}): string {
  const ds = o.disclosures ?? [closedDisclosure()];
  const payload = o.payload ?? { delegate_payload: [ref(ds[0]!)], iat: T, aud: 'gca_issuer', nonce: 'n', sd_hash: 'h', _sd_alg: 'sha-256' };
  return `${signed({ alg: 'ES256', typ: 'kb+sd-jwt', kid: p256Thumbprint(agent) }, payload, agentKey)}~${ds.map((d) => `${d}~`).join('')}`;
}
const present = (openSent: string, closedSent: string) => `${openSent.slice(0, -1)}~~${closedSent}`;
const closedJwtOf = (p: string) => p.slice(p.lastIndexOf('~~') + 2).split('~')[0]!;

function failure(result: ParseResult) {
  if (result.ok) throw new Error('expected a failure');
  return result;
}
const invalid = (p: string, description: RegExp | string) => {
  const f = failure(parsePresentation(p));
  expect(f.error, f.description).toBe('invalid_credential');
  expect(f.description).toMatch(description);
  return f;
};
const notSupported = (p: string, description: RegExp | string) => {
  const f = failure(parsePresentation(p));
  expect(f.error, f.description).toBe('mandates_not_supported');
  expect(f.description).toMatch(description);
  return f;
};

describe('a credential we issue, closed by the agent, read back', () => {
  test('the open and closed mandates resolve to what was issued and closed', () => {
    const result = parsePresentation(presentation);
    if (!result.ok) throw new Error(result.description);
    const { open: o, closed: c, reference } = result.value;
    expect(o.delegate).toEqual(open);
    expect(o.asSent).toBe(credential);
    expect(o.disclosures).toEqual(credential.split('~').slice(1, -1));
    expect(o.jwt.header).toEqual({ alg: 'ES256', typ: 'mandate+sd-jwt', kid: 'test-mandate-key-1' });
    expect(o.jwt.payload).toMatchObject({ iss: 'gca_issuer', jti: 'mdt_test', iat: T, exp: T + 3600 });
    expect(verifyEs256(keys.verifyKeys.get('test-mandate-key-1')!, o.jwt.signingInput, o.jwt.signature)).toBe(true);

    expect(c.delegate).toEqual({ vct: CLOSED_VCT, transaction_id: TXN, payee: closing.payee, payment_amount: closing.payment_amount, payment_instrument: closing.payment_instrument });
    expect(c.jwt.header).toEqual({ alg: 'ES256', typ: 'kb+sd-jwt', kid: p256Thumbprint(agent) });
    expect(c.jwt.payload).toEqual({ delegate_payload: [ref(c.disclosures[0]!)], iat: T + 5, aud: 'gca_issuer', nonce: 'nonce-1', sd_hash: sha256B64url(credential), _sd_alg: 'sha-256' });
    expect(verifyEs256(createPrivateKey({ key: agent, format: 'jwk' }), c.jwt.signingInput, c.jwt.signature)).toBe(true);
    expect(c.asSent).toBe(presentation.slice(presentation.indexOf('~~') + 2));
    expect(reference).toBe(sha256B64url(c.jwt.compact));
  });

  test('closeMandate: issuer_jwt_hash binding, optional members, and its argument checks', async () => {
    const p = await closeMandate(credential, { ...closing, binding: 'issuer_jwt_hash', execution_date: '2026-12-01', iat: T, exp: T + 600, risk_data: { device: 'x' } });
    const result = parsePresentation(p);
    if (!result.ok) throw new Error(result.description);
    expect(result.value.closed.jwt.payload.issuer_jwt_hash).toBe(sha256B64url(credential.split('~')[0]!));
    expect(result.value.closed.jwt.payload).not.toHaveProperty('sd_hash');
    expect(Object.keys(result.value.closed.delegate)).toEqual(['vct', 'transaction_id', 'payee', 'payment_amount', 'payment_instrument', 'execution_date', 'risk_data', 'iat', 'exp']);
    await expect(closeMandate(credential.slice(0, -1), closing)).rejects.toThrow(TypeError);
    await expect(closeMandate(presentation, closing)).rejects.toThrow(TypeError);
    await expect(closeMandate(credential, { ...closing, nonce: '' })).rejects.toThrow('aud and nonce are required');
    const { d: _d, ...publicOnly } = agent;
    await expect(closeMandate(credential, { ...closing, agentJwk: publicOnly })).rejects.toThrow(/^agentJwk must be a private key/);
    await expect(closeMandate(credential, { ...closing, agentJwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A' } })).rejects.toThrow(
      /P-256/,
    );
  });

  test('hand-built parts of the same shape read too (disclosures hashed as sent, not re-serialized)', () => {
    // Python writes `", "` between members: the digest is over the text as sent.
    const spaced = b64('["salt-open", {"vct": "mandate.payment.open.1", "constraints": []}]');
    const result = parsePresentation(present(openPart({ disclosures: [spaced] }), closedPart()));
    if (!result.ok) throw new Error(result.description);
    expect(result.value.open.delegate).toEqual({ vct: OPEN_VCT, constraints: [] });
  });
});

describe('step 1: mandates_not_supported', () => {
  test('more than two parts, with the reference of the last part\'s JWT', () => {
    const p = `${presentation.slice(0, -1)}~~${closedPart()}`;
    const f = notSupported(p, /at most 2 parts/);
    expect(f.reference).toBe(sha256B64url(closedJwtOf(p)));
  });

  test('an open vct or a closed vct that is not ours', () => {
    notSupported(present(openPart({ disclosures: [openDisclosure({ vct: 'mandate.payment.open.2' })] }), closedPart()), /open mandate's vct/);
    notSupported(present(openPart({ disclosures: [openDisclosure({ constraints: [] })] }), closedPart()), /open mandate's vct/);
    notSupported(present(openPart(), closedPart({ disclosures: [closedDisclosure({ vct: 'mandate.checkout.1' })] })), /closed mandate's vct/);
    // A closed mandate written inline (not disclosed) still has a vct to read.
    const inline = closedPart({ payload: { delegate_payload: [{ vct: 'mandate.checkout.1' }], _sd_alg: 'sha-256' }, disclosures: [] });
    notSupported(present(openPart(), inline), /closed mandate's vct/);
  });

  test('wins over a structural fault wherever the vct can be read', () => {
    const wrongOpen = openDisclosure({ vct: 'mandate.payment.open.2' });
    // an extra, unreferenced disclosure in the open part
    notSupported(present(openPart({ disclosures: [disclosure(['s', 'x']), wrongOpen] }), closedPart()), /open mandate's vct/);
    // a closed part with no _sd_alg and a trailing key-binding JWT
    const wrongClosed = closedDisclosure({ vct: 'mandate.checkout.1' });
    const closed = closedPart({ payload: { delegate_payload: [ref(wrongClosed)] }, disclosures: [wrongClosed] });
    notSupported(present(openPart(), `${closed}a.b.c`), /closed mandate's vct/);
    // no closed part at all, and the open one is not ours
    notSupported(openPart({ disclosures: [wrongOpen] }).slice(0, -1), /open mandate's vct/);
  });
});

describe('structure: invalid_credential', () => {
  test('no closed part: the reference is the open JWT\'s, as AP2 computes it', () => {
    const f = invalid(credential, /a closed mandate is required/);
    expect(f.reference).toBe(sha256B64url(credential.split('~')[0]!));
    invalid(credential.slice(0, -1), /a closed mandate is required/);
  });

  test('empty parts, and a closed part followed by a key-binding JWT', () => {
    invalid(`~~${closedPart()}`, /open part is empty/);
    const f = invalid(`${credential.slice(0, -1)}~~`, /closed part must end with "~"|JWT is empty/);
    expect(f.reference).toBeNull();
    invalid(`${presentation}${closedPart().split('~')[0]}`, /no key-binding JWT/);
    invalid(present(openPart(), `~${closedPart()}`), /JWT is empty/);
  });

  test('JWTs that are not compact JWS of JSON objects in canonical base64url', () => {
    const [h, p, s] = closedPart().split('~')[0]!.split('.') as [string, string, string];
    const rest = closedPart().slice(closedPart().indexOf('~'));
    const withJwt = (jwt: string) => present(openPart(), `${jwt}${rest}`);
    invalid(withJwt(`${h}.${p}`), /not a compact JWS/);
    invalid(withJwt(`${h}.${p}.${s}.x`), /not a compact JWS/);
    invalid(withJwt(`${h}=.${p}.${s}`), /header is not base64url/);
    invalid(withJwt(`${b64('not json')}.${p}.${s}`), /header is not I-JSON/);
    invalid(withJwt(`${b64('[1]')}.${p}.${s}`), /must be JSON objects/);
    invalid(withJwt(`${h}.${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.${s}`), /payload is not UTF-8/);
    invalid(withJwt(`${h}.${p}.${s}+`), /signature is not base64url/);
  });

  test('a non-canonical base64url spelling of the same signature is refused (one closed JWT, one reference)', () => {
    // 64 bytes → 86 characters, the last carrying 2 unused bits: set one of them.
    const [h, p, s] = closedPart().split('~')[0]!.split('.') as [string, string, string];
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(s.at(-1)!);
    const other = `${s.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(other, 'base64url')).toEqual(Buffer.from(s, 'base64url'));
    const rest = closedPart().slice(closedPart().indexOf('~'));
    invalid(present(openPart(), `${h}.${p}.${other}${rest}`), /signature is not canonical base64url/);
  });

  test('a payload that is not I-JSON (a repeated member)', () => {
    const d = openDisclosure();
    const raw = `{"iss":"a","iss":"b","_sd_alg":"sha-256","delegate_payload":[{"...":"${sha256B64url(d)}"}]}`;
    invalid(present(openPart({ raw, disclosures: [d] }), closedPart()), /payload is not I-JSON/);
  });

  test('_sd_alg other than sha-256, or none', () => {
    const d = openDisclosure();
    invalid(present(openPart({ payload: { _sd_alg: 'sha-512', delegate_payload: [ref(d)] }, disclosures: [d] }), closedPart()), /_sd_alg must be "sha-256"/);
    invalid(present(openPart({ payload: { delegate_payload: [ref(d)] }, disclosures: [d] }), closedPart()), /_sd_alg/);
    const c = closedDisclosure();
    invalid(present(openPart(), closedPart({ payload: { delegate_payload: [ref(c)] }, disclosures: [c] })), /closed part: _sd_alg/);
  });

  test('disclosures that are not [salt, value] or [salt, name, value]', () => {
    const bad = [b64('{"a":1}'), disclosure(['s']), disclosure(['s', 'n', 1, 2]), disclosure([1, {}]), disclosure(['s', 2, 1]), b64('not json'), 'a+b'];
    for (const d of bad) invalid(present(openPart({ disclosures: [d, openDisclosure()] }), closedPart()), /disclosure 1/);
    for (const name of ['_sd', '...', '__proto__', 'constructor']) {
      invalid(present(openPart({ disclosures: [disclosure(['s', name, 1]), openDisclosure()] }), closedPart()), /cannot be a disclosed claim's name/);
    }
  });

  test('a digest without its disclosure (a payee disclosure removed)', () => {
    const segments = presentation.split('~');
    segments.splice(1, 1);
    invalid(segments.join('~'), /a digest has no disclosure/);
  });

  test('a disclosure no digest references, or one sent twice', () => {
    const [jwt, ...rest] = credential.split('~');
    invalid(present(`${jwt}~${disclosure(['s', { id: 'M-9', name: 'Extra' }])}~${rest.join('~')}`, closedPart()), /not referenced by any digest/);
    invalid(present(`${jwt}~${rest[0]}~${rest.join('~')}`, closedPart()), /a disclosure is sent twice/);
  });

  test('a digest used twice', () => {
    const payee = disclosure(['s', { id: 'M-1' }]);
    const o = openDisclosure({ vct: OPEN_VCT, constraints: [{ type: 'payment.allowed_payees', allowed: [ref(payee), ref(payee)] }] });
    invalid(present(openPart({ disclosures: [payee, o] }), closedPart()), /a digest appears twice/);
  });

  test('array digests with other members, digests of the wrong kind, and a disclosed claim already present', () => {
    const payee = disclosure(['s', { id: 'M-1' }]);
    const withExtra = openDisclosure({ vct: OPEN_VCT, allowed: [{ ...ref(payee), id: 'x' }] });
    invalid(present(openPart({ disclosures: [payee, withExtra] }), closedPart()), /must have no other member/);
    const claim = disclosure(['s', 'budget', 5]);
    invalid(present(openPart({ disclosures: [claim, openDisclosure({ vct: OPEN_VCT, allowed: [ref(claim)] })] }), closedPart()), /other kind/);
    invalid(present(openPart({ disclosures: [payee, openDisclosure({ vct: OPEN_VCT, _sd: [sha256B64url(payee)] })] }), closedPart()), /other kind/);
    const vct = disclosure(['s', 'vct', 'other']);
    invalid(present(openPart({ disclosures: [vct, openDisclosure({ vct: OPEN_VCT, _sd: [sha256B64url(vct)] })] }), closedPart()), /"vct" is already in its object/);
    invalid(present(openPart({ disclosures: [openDisclosure({ vct: OPEN_VCT, _sd: 'x' })] }), closedPart()), /_sd must be an array/);
    invalid(present(openPart({ disclosures: [openDisclosure({ vct: OPEN_VCT, x: { '...': 1 } })] }), closedPart()), /"\.\.\." is a member only/);
  });

  test('a claim disclosed by name resolves into its object', () => {
    const budget = disclosure(['s', 'note', 'hi']);
    const result = parsePresentation(present(openPart({ disclosures: [budget, openDisclosure({ vct: OPEN_VCT, _sd: [sha256B64url(budget)] })] }), closedPart()));
    if (!result.ok) throw new Error(result.description);
    expect(result.value.open.delegate).toEqual({ vct: OPEN_VCT, note: 'hi' });
  });

  test('selectively disclosed claims outside delegate_payload', () => {
    const aud = disclosure(['s', 'aud', 'gca_issuer']);
    const c = closedDisclosure();
    const payload = { delegate_payload: [ref(c)], _sd: [sha256B64url(aud)], _sd_alg: 'sha-256' };
    invalid(present(openPart(), closedPart({ payload, disclosures: [c, aud] })), /only delegate_payload/);
  });

  test('delegate_payload not an array of exactly one object', () => {
    const d = openDisclosure();
    const payload = (delegate_payload: unknown) => ({ _sd_alg: 'sha-256', delegate_payload });
    invalid(present(openPart({ payload: payload(ref(d)), disclosures: [d] }), closedPart()), /must be an array/);
    const second = disclosure(['s2', { vct: OPEN_VCT }]);
    invalid(present(openPart({ payload: payload([ref(d), ref(second)]), disclosures: [d, second] }), closedPart()), /exactly one object/);
    const str = disclosure(['s', 'text']);
    invalid(present(openPart({ payload: payload([ref(str)]), disclosures: [str] }), closedPart()), /exactly one object/);
    invalid(present(openPart(), closedPart({ payload: { delegate_payload: [], _sd_alg: 'sha-256' }, disclosures: [] })), /exactly one object/);
  });

  test('a closed mandate that is not disclosed', () => {
    const inline = closedPart({ payload: { delegate_payload: [{ vct: CLOSED_VCT }], _sd_alg: 'sha-256' }, disclosures: [] });
    invalid(present(openPart(), inline), /the closed mandate must be disclosed/);
  });
});

describe('shape caps, before any hashing', () => {
  test(`more than ${MAX_DISCLOSURES} disclosures`, () => {
    const many = Array.from({ length: MAX_DISCLOSURES }, (_, i) => disclosure([`s${i}`, i]));
    invalid(present(openPart({ disclosures: [...many, openDisclosure()] }), closedPart()), /at most 64 disclosures/);
    // 64 in all is still read (here: refused only for being unreferenced)
    invalid(present(openPart({ disclosures: [...many.slice(0, MAX_DISCLOSURES - 2), openDisclosure()] }), closedPart()), /not referenced/);
  });

  test('JSON nested deeper than 8, in a disclosure or a payload', () => {
    const deep = (n: number): unknown => (n === 0 ? 1 : [deep(n - 1)]);
    invalid(present(openPart({ disclosures: [openDisclosure({ vct: OPEN_VCT, x: deep(7) })] }), closedPart()), /nests deeper than 8/);
    const ok = parsePresentation(present(openPart({ disclosures: [openDisclosure({ vct: OPEN_VCT, x: deep(6) })] }), closedPart()));
    expect(ok.ok).toBe(true);
    const d = openDisclosure();
    invalid(present(openPart({ payload: { _sd_alg: 'sha-256', delegate_payload: [ref(d)], x: deep(8) }, disclosures: [d] }), closedPart()), /payload nests deeper/);
    // a 60 KiB run of brackets is refused without being parsed
    invalid(present(openPart({ disclosures: [b64('['.repeat(60_000)), openDisclosure()] }), closedPart()), /nests deeper than 8/);
  });

  test('disclosures nested in one another deeper than 8', () => {
    let inner = disclosure(['s0', 'leaf']);
    const chain = [inner];
    for (let i = 1; i <= 8; i++) {
      inner = disclosure([`s${i}`, [ref(inner)]]);
      chain.push(inner);
    }
    const top = openDisclosure({ vct: OPEN_VCT, x: [ref(inner)] });
    invalid(present(openPart({ disclosures: [...chain, top] }), closedPart()), /disclosures nest deeper than 8/);
  });
});
