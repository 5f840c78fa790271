import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { loadMcpConfig, normalizeServiceBaseUrl } from '../../src/config.js';
import { ConfigError } from '../../src/kernel/config.js';

const KEY = `gc_live_${'A1b2'.repeat(10)}`;

describe('the MCP base address is the /v1 base address', () => {
  test.each([
    ['http://localhost:3000', 'http://localhost:3000/v1'],
    ['http://localhost:3000/', 'http://localhost:3000/v1'],
    ['http://localhost:3000/v1', 'http://localhost:3000/v1'],
    ['http://localhost:3000/v1/', 'http://localhost:3000/v1'],
    ['https://api.example.com/spend', 'https://api.example.com/spend/v1'],
    ['https://api.example.com/spend/v1//', 'https://api.example.com/spend/v1'],
  ])('%s → %s', (input, base) => {
    expect(normalizeServiceBaseUrl(input)).toBe(base);
  });
});

describe('loadMcpConfig', () => {
  test('reads both variables, trimming the key', () => {
    expect(loadMcpConfig({ SPEND_AUTH_BASE_URL: 'http://127.0.0.1:3000', SPEND_AUTH_API_KEY: ` ${KEY}\n` })).toEqual({ baseUrl: 'http://127.0.0.1:3000/v1', apiKey: KEY });
  });

  test.each([
    [{}, /^Missing SPEND_AUTH_BASE_URL and SPEND_AUTH_API_KEY\./],
    [{ SPEND_AUTH_BASE_URL: '', SPEND_AUTH_API_KEY: KEY }, /^Missing SPEND_AUTH_BASE_URL\./],
    [{ SPEND_AUTH_BASE_URL: 'http://x' }, /^Missing SPEND_AUTH_API_KEY\./],
    [{ SPEND_AUTH_BASE_URL: 'not a url', SPEND_AUTH_API_KEY: KEY }, /SPEND_AUTH_BASE_URL: must be an http:\/\/ or https:\/\/ URL/],
    [{ SPEND_AUTH_BASE_URL: 'ftp://x', SPEND_AUTH_API_KEY: KEY }, /SPEND_AUTH_BASE_URL: must be an http:\/\/ or https:\/\/ URL/],
    [{ SPEND_AUTH_BASE_URL: 'https://u:p@x', SPEND_AUTH_API_KEY: KEY }, /SPEND_AUTH_BASE_URL: must not carry credentials/],
    [{ SPEND_AUTH_BASE_URL: 'http://x', SPEND_AUTH_API_KEY: 'gc_test_short' }, /SPEND_AUTH_API_KEY: must be an API key/],
  ])('%j is refused with a message naming the variable', (env, message) => {
    expect(() => loadMcpConfig(env)).toThrow(ConfigError);
    expect(() => loadMcpConfig(env)).toThrow(message);
  });

  test('the message never echoes the key', () => {
    const bad = 'sk-very-secret-value';
    try {
      loadMcpConfig({ SPEND_AUTH_BASE_URL: 'http://x', SPEND_AUTH_API_KEY: bad });
    } catch (err) {
      expect(String(err)).not.toContain(bad);
      return;
    }
    throw new Error('accepted a malformed key');
  });
});

describe('loadMcpConfig: the fetch_paid_resource tool (SPEND_AUTH_X402_*)', () => {
  const base = { SPEND_AUTH_BASE_URL: 'http://127.0.0.1:3000', SPEND_AUTH_API_KEY: KEY };
  const PRIVATE = `0x${'ab'.repeat(32)}`;

  test('off without SPEND_AUTH_X402_PRIVATE_KEY; on with it, defaults: no wait, public addresses only, the key\'s own agent', () => {
    expect(loadMcpConfig(base)).not.toHaveProperty('x402');
    expect(loadMcpConfig({ ...base, SPEND_AUTH_X402_PRIVATE_KEY: ` ${PRIVATE}\n` }).x402).toEqual({ privateKey: PRIVATE, maxWaitSeconds: 0, allowPrivateUrls: false });
    expect(
      loadMcpConfig({ ...base, SPEND_AUTH_X402_PRIVATE_KEY: PRIVATE, SPEND_AUTH_X402_AGENT_ID: 'agt_1a2B', SPEND_AUTH_X402_MAX_WAIT_SECONDS: '300', SPEND_AUTH_X402_ALLOW_PRIVATE_URLS: '1' }).x402,
    ).toEqual({ privateKey: PRIVATE, agentId: 'agt_1a2B', maxWaitSeconds: 300, allowPrivateUrls: true });
  });

  test.each([
    [{ SPEND_AUTH_X402_AGENT_ID: 'agt_1' }, /^SPEND_AUTH_X402_AGENT_ID is set, but SPEND_AUTH_X402_PRIVATE_KEY is not/],
    [{ SPEND_AUTH_X402_MAX_WAIT_SECONDS: '5', SPEND_AUTH_X402_ALLOW_PRIVATE_URLS: 'true' }, /^SPEND_AUTH_X402_MAX_WAIT_SECONDS and SPEND_AUTH_X402_ALLOW_PRIVATE_URLS are set/],
    [{ SPEND_AUTH_X402_PRIVATE_KEY: '0x1234' }, /SPEND_AUTH_X402_PRIVATE_KEY: must be an EVM private key/],
    [{ SPEND_AUTH_X402_PRIVATE_KEY: 'ab'.repeat(32) }, /SPEND_AUTH_X402_PRIVATE_KEY: must be an EVM private key/],
    [{ SPEND_AUTH_X402_PRIVATE_KEY: PRIVATE, SPEND_AUTH_X402_AGENT_ID: 'pol_1' }, /SPEND_AUTH_X402_AGENT_ID: must be an agent id/],
    [{ SPEND_AUTH_X402_PRIVATE_KEY: PRIVATE, SPEND_AUTH_X402_MAX_WAIT_SECONDS: '301' }, /SPEND_AUTH_X402_MAX_WAIT_SECONDS: must be a whole number of seconds from 0 to 300/],
    [{ SPEND_AUTH_X402_PRIVATE_KEY: PRIVATE, SPEND_AUTH_X402_MAX_WAIT_SECONDS: '1.5' }, /SPEND_AUTH_X402_MAX_WAIT_SECONDS/],
    [{ SPEND_AUTH_X402_PRIVATE_KEY: PRIVATE, SPEND_AUTH_X402_ALLOW_PRIVATE_URLS: 'yes' }, /SPEND_AUTH_X402_ALLOW_PRIVATE_URLS: must be true, false, 1 or 0/],
  ])('%j is refused with a message naming the variable', (vars, message) => {
    expect(() => loadMcpConfig({ ...base, ...vars })).toThrow(message);
  });

  test('a malformed private key is never echoed', () => {
    const secret = `0x${'cd'.repeat(31)}zz`;
    expect(() => loadMcpConfig({ ...base, SPEND_AUTH_X402_PRIVATE_KEY: secret })).toThrow(ConfigError);
    try {
      loadMcpConfig({ ...base, SPEND_AUTH_X402_PRIVATE_KEY: secret });
    } catch (err) {
      expect(String(err)).not.toContain(secret.slice(2, 20));
    }
  });
});

describe('loadMcpConfig: signed requests (SPEND_AUTH_SIGNING_KEY, SPEND_AUTH_SIGNATURE_AGENT)', () => {
  const base = { SPEND_AUTH_BASE_URL: 'http://127.0.0.1:3000', SPEND_AUTH_API_KEY: KEY };
  const ed25519 = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });

  test('off without the key; with it, the private JWK (Ed25519 or P-256) and the signature agent\'s origin', () => {
    expect(loadMcpConfig(base)).not.toHaveProperty('signing');
    expect(loadMcpConfig({ ...base, SPEND_AUTH_SIGNING_KEY: ` ${JSON.stringify(ed25519)}\n` }).signing).toEqual({ privateJwk: ed25519 });
    expect(loadMcpConfig({ ...base, SPEND_AUTH_SIGNING_KEY: JSON.stringify(p256), SPEND_AUTH_SIGNATURE_AGENT: 'https://Agent.Example.com/' }).signing).toEqual({
      privateJwk: p256,
      signatureAgent: 'https://agent.example.com',
    });
  });

  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const { d: _d, ...publicOnly } = ed25519;
  test.each([
    [{ SPEND_AUTH_SIGNATURE_AGENT: 'https://agent.example.com' }, /^SPEND_AUTH_SIGNATURE_AGENT is set, but SPEND_AUTH_SIGNING_KEY is not/],
    [{ SPEND_AUTH_SIGNING_KEY: '{"kty":' }, /SPEND_AUTH_SIGNING_KEY: must be a private JWK written as JSON/],
    [{ SPEND_AUTH_SIGNING_KEY: '"a string"' }, /SPEND_AUTH_SIGNING_KEY: must be a private JWK/],
    [{ SPEND_AUTH_SIGNING_KEY: JSON.stringify(publicOnly) }, /SPEND_AUTH_SIGNING_KEY: must be a private key/],
    [{ SPEND_AUTH_SIGNING_KEY: JSON.stringify(rsa) }, /SPEND_AUTH_SIGNING_KEY: must be an Ed25519 .* or P-256/],
    [{ SPEND_AUTH_SIGNING_KEY: JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' }) }, /SPEND_AUTH_SIGNING_KEY: must be an Ed25519/],
    [{ SPEND_AUTH_SIGNING_KEY: JSON.stringify({ ...p256, y: p256.x }) }, /SPEND_AUTH_SIGNING_KEY: (is not a valid key|does not hold)/],
    [{ SPEND_AUTH_SIGNING_KEY: JSON.stringify(ed25519), SPEND_AUTH_SIGNATURE_AGENT: 'http://agent.example.com' }, /SPEND_AUTH_SIGNATURE_AGENT: must be an https origin/],
    [{ SPEND_AUTH_SIGNING_KEY: JSON.stringify(ed25519), SPEND_AUTH_SIGNATURE_AGENT: 'https://agent.example.com/keys' }, /SPEND_AUTH_SIGNATURE_AGENT: must be an origin only/],
  ])('%j is refused with a message naming the variable', (vars, message) => {
    expect(() => loadMcpConfig({ ...base, ...vars })).toThrow(ConfigError);
    expect(() => loadMcpConfig({ ...base, ...vars })).toThrow(message);
  });

  test('the message never echoes the key', () => {
    for (const value of [JSON.stringify({ ...ed25519, kty: 'RSA' }), `${JSON.stringify(ed25519)}x`, JSON.stringify({ ...ed25519, x: p256.x })]) {
      try {
        loadMcpConfig({ ...base, SPEND_AUTH_SIGNING_KEY: value });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        expect(String(err)).not.toContain(ed25519.d);
        continue;
      }
      throw new Error('accepted a bad key');
    }
  });
});
