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
