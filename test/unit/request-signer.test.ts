/**
 * The agent's signer (src/client/request-signer.ts, signing-fetch.ts): what it covers depends on
 * the request, and what it makes verifies with two verifiers we did not write, http-message-
 * signatures 1.0.6 and http-message-sig 0.3.0 (the service's), for Ed25519 and P-256 alike.
 */
import { createHash, createPublicKey, generateKeyPairSync, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { isInnerList, parseDictionary, type InnerList } from 'structured-headers';
import { verifySignature, type FieldOccurrence, type RequestDescriptor, type Verifier } from 'http-message-sig';
import { createVerifier, httpbis } from 'http-message-signatures';
import { calculateJwkThumbprint } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createRequestSigner, type RequestSigner } from '../../src/client/request-signer.js';
import { signingFetch } from '../../src/client/signing-fetch.js';
import { startReceiver, type Received } from '../support/receiver.js';

type Alg = 'ed25519' | 'ecdsa-p256-sha256';
const ALGS: readonly Alg[] = ['ed25519', 'ecdsa-p256-sha256'];

function keyPair(alg: Alg): { privateJwk: Record<string, string>; publicKey: KeyObject } {
  const { privateKey, publicKey } = alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateJwk: privateKey.export({ format: 'jwk' }) as Record<string, string>, publicKey };
}

const keys = Object.fromEntries(ALGS.map((alg) => [alg, keyPair(alg)])) as Record<Alg, ReturnType<typeof keyPair>>;
const API_KEY = `gc_test_${'a1B2'.repeat(10)}`;

/** The Signature-Input member sig1: its covered components (serialized) and parameters. */
function input(headers: Headers): { components: string[]; params: Map<string, unknown> } {
  const member = parseDictionary(headers.get('signature-input')!).get('sig1');
  if (!member || !isInnerList(member)) throw new Error('no sig1 inner list');
  const [items, params] = member as InnerList;
  return { components: items.map(([name, p]) => (p.size ? `"${String(name)}";${[...p].map(([k, v]) => `${k}="${String(v)}"`).join(';')}` : `"${String(name)}"`)), params };
}

/** A node:crypto verifier for http-message-sig 0.3.0, as the service builds it. */
function nodeVerifier(alg: Alg, key: KeyObject): Verifier {
  return alg === 'ed25519'
    ? { algorithm: alg, verify: (data, sig) => cryptoVerify(null, data, key, sig) }
    : { algorithm: alg, verify: (data, sig) => cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig) };
}

async function verifyWithHttpMessageSig(descriptor: RequestDescriptor, alg: Alg, key: KeyObject, keyid: string) {
  return verifySignature(descriptor, {
    label: 'sig1',
    policy: { algorithms: [alg], requiredComponents: ['@method', '@authority', '@path'], requiredParameters: ['created', 'expires', 'keyid', 'nonce', 'tag'] },
    resolveVerifier: (candidate) => {
      if (candidate.parameters.keyid !== keyid) throw new Error('unknown keyid');
      return nodeVerifier(alg, key);
    },
  });
}

const fieldsOf = (headers: Headers): FieldOccurrence[] => [...headers].map(([name, value]) => ({ name, value }));

describe('createRequestSigner', () => {
  let signer: RequestSigner;
  beforeAll(async () => {
    signer = await createRequestSigner({ privateJwk: keys.ed25519.privateJwk });
  });

  test('keyid is the RFC 7638 thumbprint of the public members; alg follows kty/crv', async () => {
    const { d: _d, ...publicJwk } = keys.ed25519.privateJwk;
    expect(signer.keyid).toBe(await calculateJwkThumbprint(publicJwk as never, 'sha256'));
    expect(signer.alg).toBe('ed25519');
    expect(signer.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: keys.ed25519.privateJwk.x });
    const p256 = await createRequestSigner({ privateJwk: keys['ecdsa-p256-sha256'].privateJwk });
    expect(p256.alg).toBe('ecdsa-p256-sha256');
    expect(Object.keys(p256.publicJwk).sort()).toEqual(['crv', 'kty', 'x', 'y']);
  });

  test('a GET without query covers @method @authority @path, and no body means no Content-Digest', () => {
    const headers = signer.sign({ method: 'GET', url: 'https://api.example.com/v1/decisions/dec_1' });
    expect(input(headers).components).toEqual(['"@method"', '"@authority"', '"@path"']);
    expect(headers.has('content-digest')).toBe(false);
    expect(headers.has('signature-agent')).toBe(false);
  });

  test.each([
    ['https://api.example.com/v1/decisions/dec_1?wait=30'],
    // A bare `?` is a query to the service (@query is then "?"): covered too.
    ['https://api.example.com/v1/agents?'],
  ])('%s: @query is covered', (url) => {
    expect(input(signer.sign({ method: 'GET', url })).components).toEqual(['"@method"', '"@authority"', '"@path"', '"@query"']);
  });

  test('a body: Content-Digest is the SHA-256 of its exact bytes, and covered', () => {
    const body = '{"agent_id":"agt_1","amount":1999,"currency":"USD","vendor":"openai.com","note":"café"}';
    const headers = signer.sign({ method: 'POST', url: 'https://api.example.com/v1/authorize', headers: { 'content-type': 'application/json' }, body });
    const expected = createHash('sha256').update(Buffer.from(body, 'utf8')).digest('base64');
    expect(headers.get('content-digest')).toBe(`sha-256=:${expected}:`);
    expect(input(headers).components).toEqual(['"@method"', '"@authority"', '"@path"', '"content-digest"']);
    expect(headers.get('content-type')).toBe('application/json');
  });

  test('an empty body is no body', () => {
    const headers = signer.sign({ method: 'POST', url: 'https://api.example.com/v1/decisions/dec_1/void', body: new Uint8Array(0) });
    expect(headers.has('content-digest')).toBe(false);
  });

  test('a signature agent: the Signature-Agent header, and its member sig1 covered', async () => {
    const agent = await createRequestSigner({ privateJwk: keys.ed25519.privateJwk, signatureAgent: 'https://Agent.Example.com/' });
    const headers = agent.sign({ method: 'GET', url: 'https://api.example.com/v1/agents' });
    expect(headers.get('signature-agent')).toBe('sig1="https://agent.example.com"');
    expect(input(headers).components).toEqual(['"@method"', '"@authority"', '"@path"', '"signature-agent";key="sig1"']);
    expect(agent.signatureAgent).toBe('https://agent.example.com');
  });

  test('Authorization is covered when sent, unless turned off', async () => {
    const headers = { authorization: `Bearer ${API_KEY}` };
    expect(input(signer.sign({ method: 'GET', url: 'https://api.example.com/v1/agents', headers })).components).toContain('"authorization"');
    const off = await createRequestSigner({ privateJwk: keys.ed25519.privateJwk, coverAuthorization: false });
    expect(input(off.sign({ method: 'GET', url: 'https://api.example.com/v1/agents', headers })).components).not.toContain('"authorization"');
  });

  test('parameters: created, expires = created + lifetime (60 s by default), keyid, a fresh 32-byte nonce, tag web-bot-auth, alg', async () => {
    const at = new Date('2026-11-27T12:00:00.700Z');
    const fixed = await createRequestSigner({ privateJwk: keys['ecdsa-p256-sha256'].privateJwk, now: () => at });
    const a = input(fixed.sign({ method: 'GET', url: 'https://api.example.com/v1/agents' })).params;
    const b = input(fixed.sign({ method: 'GET', url: 'https://api.example.com/v1/agents' })).params;
    const created = Math.floor(at.getTime() / 1000);
    expect(Object.fromEntries([...a].filter(([k]) => k !== 'nonce'))).toEqual({ created, expires: created + 60, keyid: fixed.keyid, tag: 'web-bot-auth', alg: 'ecdsa-p256-sha256' });
    const nonce = a.get('nonce') as string;
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(nonce, 'base64url')).toHaveLength(32);
    expect(b.get('nonce')).not.toBe(nonce);
    const short = await createRequestSigner({ privateJwk: keys.ed25519.privateJwk, lifetimeSeconds: 5, now: () => at });
    expect(input(short.sign({ method: 'GET', url: 'https://api.example.com/' })).params.get('expires')).toBe(created + 5);
  });

  test.each([
    [{ lifetimeSeconds: 0 }, /lifetimeSeconds must be a whole number from 1 to 300/],
    [{ lifetimeSeconds: 301 }, /lifetimeSeconds/],
    [{ lifetimeSeconds: 1.5 }, /lifetimeSeconds/],
    [{ signatureAgent: 'http://agent.example.com' }, /signatureAgent must be an https origin/],
    [{ signatureAgent: 'https://agent.example.com/dir' }, /signatureAgent must be an origin only/],
    [{ signatureAgent: 'https://agent.example.com/?' }, /signatureAgent must be an origin only/],
    [{ signatureAgent: 'https://u:p@agent.example.com' }, /signatureAgent must be an origin only/],
  ])('%j is refused at once', (extra, message) => {
    expect(() => createRequestSigner({ privateJwk: keys.ed25519.privateJwk, ...extra })).toThrow(message);
  });

  test('keys other than private Ed25519 or P-256 are refused, never quoting d', () => {
    const ed = keys.ed25519.privateJwk;
    const { d, ...publicOnly } = ed;
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ format: 'jwk' });
    const other = keyPair('ed25519').privateJwk;
    const otherP256 = keyPair('ecdsa-p256-sha256').privateJwk;
    const cases: [unknown, RegExp][] = [
      [publicOnly, /privateJwk must be a private key/],
      [rsa, /privateJwk must be an Ed25519 .* or P-256/],
      [p384, /privateJwk must be an Ed25519 .* or P-256/],
      [{ kty: 'oct', k: 'c2VjcmV0' }, /privateJwk must be an Ed25519/],
      [{ ...ed, x: other.x }, /privateJwk does not hold the public key of its d/],
      // node:crypto imports a P-256 JWK whose x and y are another key's without a word: the point is computed from d.
      [{ ...keys['ecdsa-p256-sha256'].privateJwk, x: otherP256.x, y: otherP256.y }, /privateJwk does not hold the public key of its d/],
      [{ ...keys['ecdsa-p256-sha256'].privateJwk, y: otherP256.y }, /privateJwk does not hold the public key of its d|privateJwk is not a valid key/],
      [{ ...ed, d: 'not base64url!' }, /privateJwk is not a valid key|privateJwk does not hold/],
      ['{"kty":"OKP"}', /privateJwk must be a private JWK/],
    ];
    for (const [privateJwk, message] of cases) {
      let thrown: unknown;
      try {
        void createRequestSigner({ privateJwk: privateJwk as object });
      } catch (err) {
        thrown = err;
      }
      expect(thrown, JSON.stringify(privateJwk).slice(0, 40)).toBeInstanceOf(TypeError);
      expect(String(thrown)).toMatch(message);
      expect(String(thrown)).not.toContain(d);
    }
  });
});

describe.each(ALGS)('%s: the signature verifies with verifiers we did not write', (alg) => {
  const url = 'https://api.example.com:8443/v1/decisions/dec_1/capture?expand=x';
  const body = JSON.stringify({ amount: 1850, metadata: { order: 'A-1' } });
  let signer: RequestSigner;
  let headers: Headers;
  beforeAll(async () => {
    signer = await createRequestSigner({ privateJwk: keys[alg].privateJwk, signatureAgent: 'https://agent.example.com' });
    headers = signer.sign({ method: 'POST', url, headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'user-agent': 'bot \u00e9' }, body });
  });

  test('http-message-signatures 1.0.6 (httpbis.verifyMessage, createVerifier)', async () => {
    const seen: unknown[] = [];
    const verified = await httpbis.verifyMessage(
      {
        keyLookup: async (params) => {
          seen.push(params.keyid);
          return params.keyid === signer.keyid ? { id: signer.keyid, algs: [alg], verify: createVerifier(keys[alg].publicKey, alg) } : null;
        },
        requiredParams: ['created', 'expires', 'keyid', 'nonce', 'tag'],
        requiredFields: ['@method', '@authority', '@path', '@query', 'content-digest', 'authorization'],
      },
      { method: 'POST', url, headers: Object.fromEntries(headers) },
    );
    expect(verified).toBe(true);
    expect(seen).toEqual([signer.keyid]);
  });

  test('http-message-sig 0.3.0 (verifySignature) with a node:crypto verifier', async () => {
    const fields = fieldsOf(headers).filter((f) => f.name !== 'user-agent');
    const verified = await verifyWithHttpMessageSig({ kind: 'request', method: 'POST', targetUri: url, fields }, alg, keys[alg].publicKey, signer.keyid);
    expect(verified.parameters.tag).toBe('web-bot-auth');
  });

  test('a body, method or path changed after signing does not verify', async () => {
    const fields = fieldsOf(headers).filter((f) => f.name !== 'user-agent');
    await expect(verifyWithHttpMessageSig({ kind: 'request', method: 'PUT', targetUri: url, fields }, alg, keys[alg].publicKey, signer.keyid)).rejects.toThrow(/verification failed/i);
    await expect(
      verifyWithHttpMessageSig({ kind: 'request', method: 'POST', targetUri: url.replace('dec_1', 'dec_2'), fields }, alg, keys[alg].publicKey, signer.keyid),
    ).rejects.toThrow(/verification failed/i);
    const otherKey = generateKeyPairSync('ed25519').publicKey;
    const wrong = alg === 'ed25519' ? otherKey : createPublicKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
    await expect(verifyWithHttpMessageSig({ kind: 'request', method: 'POST', targetUri: url, fields }, alg, wrong, signer.keyid)).rejects.toThrow(/verification failed/i);
  });
});

describe('signingFetch', () => {
  /** A real server on 127.0.0.1 that keeps what it was sent: headers as received, the body's bytes. */
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let received: Received[] = [];
  let base: string;
  let answers: number[] = [];
  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: answers.shift() ?? 200 }));
    received = receiver.received;
    base = new URL(receiver.url).origin;
  });
  afterAll(() => receiver.close());

  /** The request as the server saw it, as the service builds its descriptor (target from Host). */
  const descriptorOf = (r: (typeof received)[number]): RequestDescriptor => {
    const fields: FieldOccurrence[] = [];
    for (let i = 0; i < r.rawHeaders.length; i += 2) fields.push({ name: r.rawHeaders[i]!.toLowerCase(), value: r.rawHeaders[i + 1]! });
    const host = fields.find((f) => f.name === 'host')!.value;
    return { kind: 'request', method: r.method, targetUri: `http://${host}${r.path}`, fields };
  };
  const header = (r: (typeof received)[number], name: string) => descriptorOf(r).fields.find((f) => f.name === name)?.value;

  test.each(ALGS)('%s: each attempt is signed afresh (a retry gets a new nonce), and verifies as the server received it', async (alg) => {
    received.length = 0;
    answers = [503, 200];
    const signer = await createRequestSigner({ privateJwk: keys[alg].privateJwk });
    const signed = signingFetch((req) => fetch(req), signer);
    const body = JSON.stringify({ agent_id: 'agt_1', amount: 1999, currency: 'USD', vendor: 'openai.com' });
    // A caller that retries: a new Request per attempt, as openapi-fetch builds one per call.
    const attempt = () =>
      signed(new Request(`${base}/v1/authorize?x=1`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': 'k-1' }, body }));
    let res = await attempt();
    if (res.status === 503) res = await attempt();
    expect(res.status).toBe(200);

    expect(received).toHaveLength(2);
    const nonces = received.map((r) => input(new Headers({ 'signature-input': header(r, 'signature-input')! })).params.get('nonce'));
    expect(new Set(nonces).size).toBe(2);
    for (const r of received) {
      expect(r.bytes.toString('utf8')).toBe(body);
      expect(header(r, 'content-digest')).toBe(`sha-256=:${createHash('sha256').update(r.bytes).digest('base64')}:`);
      expect(header(r, 'idempotency-key')).toBe('k-1');
      const verified = await verifyWithHttpMessageSig(descriptorOf(r), alg, keys[alg].publicKey, signer.keyid);
      // The Idempotency-Key is covered (DECISIONS §19 step 5): a proxy that strips it breaks the signature.
      expect(verified.components.map((c) => c.name)).toEqual(['@method', '@authority', '@path', '@query', 'content-digest', 'idempotency-key', 'authorization']);
    }
  });

  test('a GET carries no body and no Content-Digest; the caller\'s Request is left unsent and unchanged', async () => {
    received.length = 0;
    const signer = await createRequestSigner({ privateJwk: keys.ed25519.privateJwk });
    const req = new Request(`${base}/v1/decisions/dec_1`, { headers: { authorization: `Bearer ${API_KEY}` } });
    await signingFetch((r) => fetch(r), signer)(req);
    expect(req.headers.has('signature')).toBe(false);
    expect(received[0]!.bytes).toHaveLength(0);
    expect(header(received[0]!, 'content-digest')).toBeUndefined();
    await verifyWithHttpMessageSig(descriptorOf(received[0]!), 'ed25519', keys.ed25519.publicKey, signer.keyid);
  });

  test('a signer that failed makes each call fail, not the process', async () => {
    const failing = Promise.reject(new Error('no key'));
    const signed = signingFetch((r) => fetch(r), failing);
    await new Promise((r) => setTimeout(r, 10));
    await expect(signed(new Request(`${base}/`))).rejects.toThrow('no key');
  });
});
