/**
 * The pure steps of DECISIONS §19's verification (src/agent-keys/request-signature.ts): parsing
 * (1–2), the label (3), parameters (4), coverage (5), Content-Digest (6, with RFC 9530's vectors)
 * and expiry (8), each at its boundaries.
 */
import { describe, expect, test } from 'vitest';
import { parseDictionary } from 'structured-headers';
import {
  checkContentDigest,
  checkCoverage,
  checkNotExpired,
  checkParameters,
  chooseLabel,
  parseSignatureFields,
  parseStrictDictionary,
  type ChosenLabel,
  type SignedMessage,
} from '../../src/agent-keys/request-signature.js';
import type { UsableKey } from '../../src/agent-keys/agent-key-cache.js';
import { AppError } from '../../src/kernel/errors.js';

const key = (thumbprint: string, directory: UsableKey['directory'] = null): UsableKey => ({
  id: `akey_${thumbprint}`,
  thumbprint,
  alg: 'ed25519',
  verifier: { algorithm: 'ed25519', verify: () => true },
  directory,
});

const msg = (headers: Record<string, string>, over: Partial<SignedMessage> = {}): SignedMessage => ({
  method: 'POST',
  origin: 'https://api.example',
  target: '/v1/authorize',
  fields: Object.entries(headers).map(([name, value]) => ({ name, value })),
  body: Buffer.alloc(0),
  ...over,
});

const SIG = 'sig1=:AAAA:';
const input = (rest = '', label = 'sig1') => `${label}=("@method" "@authority" "@path");created=100;expires=160;keyid="k1";nonce="0123456789abcdef";tag="web-bot-auth"${rest}`;

function code(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return `${err.code}${err.param ? `:${err.param}` : ''}`;
    throw err;
  }
}

describe('steps 1–2: parsing', () => {
  test('no Signature-Input, or none tagged web-bot-auth: unsigned', () => {
    expect(parseSignatureFields(msg({})).kind).toBe('unsigned');
    expect(parseSignatureFields(msg({ signature: SIG })).kind).toBe('unsigned');
    expect(parseSignatureFields(msg({ signature: SIG, 'signature-input': 'sig1=("@method");tag="other"' })).kind).toBe('unsigned');
    expect(parseSignatureFields(msg({ signature: SIG, 'signature-input': 'sig1=("@method");tag=web-bot-auth' })).kind).toBe('unsigned'); // a Token, not a String
  });
  test.each([
    ['a Signature-Input that does not parse', { signature: SIG, 'signature-input': 'sig1=("@method"' }, 'signature_invalid:Signature-Input'],
    ['a label only in Signature-Input', { signature: SIG, 'signature-input': `${input()}, sig2=("@method")` }, 'signature_invalid:Signature-Input'],
    ['a label only in Signature', { signature: `${SIG}, sig2=:AAAA:`, 'signature-input': input() }, 'signature_invalid:Signature-Input'],
    ['a label twice in Signature-Input', { signature: SIG, 'signature-input': `${input()}, ${input()}` }, 'signature_invalid:Signature-Input'],
    ['a parameter twice', { signature: SIG, 'signature-input': input(';nonce="0123456789abcdeg"') }, 'signature_invalid:Signature-Input'],
    ['Signature missing', { 'signature-input': input() }, 'signature_invalid:Signature'],
    ['Signature a string', { signature: 'sig1="abc"', 'signature-input': input() }, 'signature_invalid:Signature'],
    ['Signature with a parameter', { signature: 'sig1=:AAAA:;x=1', 'signature-input': input() }, 'signature_invalid:Signature'],
    ['a Signature-Input member that is not an inner list', { signature: `${SIG}, b=:AAAA:`, 'signature-input': `${input()}, b=1` }, 'signature_invalid:Signature-Input'],
    ['a Date (RFC 9651 only)', { signature: SIG, 'signature-input': input(';d=@1') }, 'signature_invalid:Signature-Input'],
    ['Signature-Agent as an sf-string', { signature: SIG, 'signature-input': input(), 'signature-agent': '"https://a.example"' }, 'signature_invalid:Signature-Agent'],
  ])('%s', (_name, headers, expected) => {
    expect(code(() => parseSignatureFields(msg(headers)))).toBe(expected);
  });
  test('repeated field lines are joined with ", "', () => {
    const parsed = parseSignatureFields(msg({ signature: SIG, 'signature-input': input() }, { fields: [{ name: 'signature', value: SIG }, { name: 'signature-input', value: input() }, { name: 'signature-input', value: input('', 'sig2') }, { name: 'signature', value: 'sig2=:AAAA:' }] }));
    expect(parsed.kind === 'signed' && parsed.tagged.map((t) => t.label)).toEqual(['sig1', 'sig2']);
  });
  test('strict dictionaries: a quoted comma or semicolon is not a member or parameter', () => {
    expect(parseStrictDictionary('a="x,y;z";p=1, b=2')?.size).toBe(2);
    expect(parseStrictDictionary('a=1, a=2')).toBeUndefined();
  });
});

const NOW_MS = Date.parse('2026-12-01T00:00:00Z');

const signed = (headers: Record<string, string>) => {
  const p = parseSignatureFields(msg(headers));
  if (p.kind !== 'signed') throw new Error('unsigned');
  return p;
};

describe('step 3: the label', () => {
  test('the first tagged label whose keyid is a key of the agent', () => {
    const p = signed({ signature: `${SIG}, sig2=:AAAA:`, 'signature-input': `${input()}, ${input('', 'sig2').replace('"k1"', '"k2"')}` });
    expect(chooseLabel(p, [key('k2')], NOW_MS)?.label).toBe('sig2');
    expect(chooseLabel(p, [key('k1'), key('k2')], NOW_MS)?.label).toBe('sig1');
    expect(chooseLabel(p, [key('k3')], NOW_MS)).toBeUndefined();
  });
  test('a directory key: only with its origin as the label\'s Signature-Agent member, and while listed', () => {
    const dir = { origin: 'https://agent.example', thumbprints: ['k1'], listedUntil: NOW_MS + 1 };
    const withAgent = (agent: string) => signed({ signature: SIG, 'signature-input': input(), 'signature-agent': agent });
    expect(chooseLabel(withAgent('sig1="https://agent.example"'), [key('k1', dir)], NOW_MS)?.signatureAgent).toBe('https://agent.example');
    expect(chooseLabel(withAgent('sig1="https://agent.example/"'), [key('k1', dir)], NOW_MS)).toBeDefined();
    expect(chooseLabel(withAgent('sig1="https://agent.example/path"'), [key('k1', dir)], NOW_MS)).toBeUndefined();
    expect(chooseLabel(withAgent('sig1="https://other.example"'), [key('k1', dir)], NOW_MS)).toBeUndefined();
    expect(chooseLabel(withAgent('other="https://agent.example"'), [key('k1', dir)], NOW_MS)).toBeUndefined();
    expect(chooseLabel(withAgent('sig1="https://agent.example"'), [key('k1', { ...dir, thumbprints: [] })], NOW_MS)).toBeUndefined();
    // A listing no fetch confirmed for 24 h no longer vouches for its keys (DECISIONS §19).
    expect(chooseLabel(withAgent('sig1="https://agent.example"'), [key('k1', { ...dir, listedUntil: NOW_MS - 1 })], NOW_MS)).toBeUndefined();
    expect(chooseLabel(withAgent('sig1="https://agent.example"'), [key('k1', { ...dir, listedUntil: NOW_MS })], NOW_MS)).toBeDefined();
  });
});

const chosen = (params: string, components = '"@method" "@authority" "@path"'): ChosenLabel => {
  const p = signed({ signature: SIG, 'signature-input': `sig1=(${components});keyid="k1";tag="web-bot-auth"${params}` });
  return chooseLabel(p, [key('k1')], NOW_MS)!;
};

describe('step 4: parameters', () => {
  const NOW = 1_000;
  const ok = ';created=1000;expires=1060;nonce="0123456789abcdef"';
  test.each([
    ['all present', ok, undefined],
    ['no created', ';expires=1060;nonce="0123456789abcdef"', 'signature_invalid:Signature-Input'],
    ['created not an integer', ';created=1000.5;expires=1060;nonce="0123456789abcdef"', 'signature_invalid:Signature-Input'],
    ['no expires', ';created=1000;nonce="0123456789abcdef"', 'signature_invalid:Signature-Input'],
    ['no nonce', ';created=1000;expires=1060', 'signature_invalid:Signature-Input'],
    ['nonce 15', ';created=1000;expires=1060;nonce="0123456789abcde"', 'signature_invalid:Signature-Input'],
    ['nonce 16', ';created=1000;expires=1060;nonce="0123456789abcdef"', undefined],
    ['nonce 256', `;created=1000;expires=1060;nonce="${'n'.repeat(256)}"`, undefined],
    ['nonce 257', `;created=1000;expires=1060;nonce="${'n'.repeat(257)}"`, 'signature_invalid:Signature-Input'],
    ['nonce a Token', ';created=1000;expires=1060;nonce=abcdefghijklmnopq', 'signature_invalid:Signature-Input'],
    ["alg the key's", `${ok};alg="ed25519"`, undefined],
    ['alg another', `${ok};alg="ecdsa-p256-sha256"`, 'signature_invalid:Signature-Input'],
    ['alg hmac', `${ok};alg="hmac-sha256"`, 'signature_invalid:Signature-Input'],
    ['lifetime 300', ';created=1000;expires=1300;nonce="0123456789abcdef"', undefined],
    ['lifetime 301', ';created=1000;expires=1301;nonce="0123456789abcdef"', 'signature_invalid:Signature-Input'],
    ['expires before created', ';created=1000;expires=999;nonce="0123456789abcdef"', 'signature_invalid:Signature-Input'],
    ['created now + 30', ';created=1030;expires=1060;nonce="0123456789abcdef"', undefined],
    ['created now + 31', ';created=1031;expires=1061;nonce="0123456789abcdef"', 'signature_invalid:Signature-Input'],
  ])('%s', (_name, params, expected) => {
    expect(code(() => checkParameters(chosen(params), NOW))).toBe(expected);
  });
});

describe('step 5: coverage', () => {
  const P = ';created=1;expires=2;nonce="0123456789abcdef"';
  const check = (components: string, over: Partial<SignedMessage> = {}, headers: Record<string, string> = {}) =>
    code(() => checkCoverage(chosen(P, components), msg(headers, over)));
  const body = { body: Buffer.from('{}') };
  test.each([
    ['the minimum', '"@method" "@authority" "@path"', {}, {}, undefined],
    ['no @method', '"@authority" "@path"', {}, {}, 'signature_invalid:Signature-Input'],
    ['@authority without @path', '"@method" "@authority"', {}, {}, 'signature_invalid:Signature-Input'],
    ['@path without @authority', '"@method" "@path"', {}, {}, 'signature_invalid:Signature-Input'],
    ['@target-uri alone', '"@method" "@target-uri"', {}, {}, undefined],
    ['a query without @query', '"@method" "@authority" "@path"', { target: '/v1/x?wait=1' }, {}, 'signature_invalid:Signature-Input'],
    ['an empty query without @query', '"@method" "@authority" "@path"', { target: '/v1/x?' }, {}, 'signature_invalid:Signature-Input'],
    ['a query with @query', '"@method" "@authority" "@path" "@query"', { target: '/v1/x?wait=1' }, {}, undefined],
    ['a query with @target-uri', '"@method" "@target-uri"', { target: '/v1/x?wait=1' }, {}, undefined],
    ['a body without content-digest', '"@method" "@authority" "@path"', body, {}, 'signature_invalid:Signature-Input'],
    ['a body with content-digest', '"@method" "@authority" "@path" "content-digest"', body, {}, undefined],
    ['a Signature-Agent not covered', '"@method" "@authority" "@path"', {}, { 'signature-agent': 'sig1="https://a.example"' }, 'signature_invalid:Signature-Input'],
    ['its member for another label', '"@method" "@authority" "@path" "signature-agent";key="other"', {}, { 'signature-agent': 'sig1="https://a.example"' }, 'signature_invalid:Signature-Input'],
    ['its member for this label', '"@method" "@authority" "@path" "signature-agent";key="sig1"', {}, { 'signature-agent': 'sig1="https://a.example"' }, undefined],
    ['the whole field', '"@method" "@authority" "@path" "signature-agent"', {}, { 'signature-agent': 'sig1="https://a.example"' }, undefined],
    ['@method with a parameter does not count', '"@method";req "@authority" "@path"', {}, {}, 'signature_invalid:Signature-Input'],
  ])('%s', (_name, components, over, headers, expected) => {
    expect(check(components, over, headers)).toBe(expected);
  });
});

describe('step 6: Content-Digest (RFC 9530 vectors for {"hello": "world"})', () => {
  const body = Buffer.from('{"hello": "world"}\n'.slice(0, -1));
  const SHA256 = 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:';
  const SHA512 = 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:';
  const check = (digest: string | undefined, b: Buffer = body) => code(() => checkContentDigest(msg(digest === undefined ? {} : { 'content-digest': digest }, { body: b })));
  test.each([
    ['sha-256', SHA256, undefined],
    ['sha-512', SHA512, undefined],
    ['both, one wrong', `sha-256=:AAAA:, ${SHA512}`, undefined],
    ['only md5', 'md5=:AAAAAAAAAAAAAAAAAAAAAA==:', 'signature_invalid:Content-Digest'],
    ['a wrong sha-256', 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPA=:', 'signature_invalid:Content-Digest'],
    ['not a dictionary', 'sha-256', 'signature_invalid:Content-Digest'],
    ['a string, not bytes', 'sha-256="X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE="', 'signature_invalid:Content-Digest'],
    ['absent with a body', undefined, 'signature_invalid:Content-Digest'],
  ])('%s', (_name, digest, expected) => {
    expect(check(digest)).toBe(expected);
  });
  test('no body and no field: nothing to check; a field sent with no body is checked against the empty body', () => {
    expect(check(undefined, Buffer.alloc(0))).toBeUndefined();
    expect(check(SHA256, Buffer.alloc(0))).toBe('signature_invalid:Content-Digest');
    expect(check('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:', Buffer.alloc(0))).toBeUndefined();
  });
  test('the vectors themselves parse as byte sequences', () => {
    expect(parseDictionary(SHA256).get('sha-256')![0]).toBeInstanceOf(ArrayBuffer);
  });
});

describe('step 8: expiry', () => {
  const params = { created: 1000, expires: 1060, keyid: 'k1', nonce: '0123456789abcdef' };
  test('now = expires + 30 passes; + 31 is signature_expired', () => {
    expect(code(() => checkNotExpired(params, 1090))).toBeUndefined();
    expect(code(() => checkNotExpired(params, 1091))).toBe('signature_expired:Signature-Input');
  });
});
