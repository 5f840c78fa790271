import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { responseCipher } from '../../src/idempotency/response-cipher.js';

const key = randomBytes(32);
const scope = JSON.stringify(['acct_1', false, 'key_1', 'order-1']);

describe('responseCipher (stored idempotent responses)', () => {
  test('needs a 32-byte key', () => {
    expect(() => responseCipher(randomBytes(31))).toThrow('The idempotency encryption key must be 32 bytes');
    expect(() => responseCipher(randomBytes(33))).toThrow('must be 32 bytes');
    expect(() => responseCipher(key)).not.toThrow();
  });

  test('seals as v1.<iv>.<tag>.<body> with a fresh 12-byte IV each time, and opens to the same text', () => {
    const c = responseCipher(key);
    const plain = '{"key":"gc_live_secret","amount":1000}';
    const a = c.seal(plain, scope);
    const b = c.seal(plain, scope);
    expect(a).not.toBe(b);
    const [version, iv, tag, body] = a.split('.');
    expect(version).toBe('v1');
    expect(Buffer.from(iv!, 'base64url')).toHaveLength(12);
    expect(Buffer.from(tag!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(body!, 'base64url')).toHaveLength(Buffer.byteLength(plain));
    expect(a).not.toContain('gc_live_secret');
    expect(c.open(a, scope)).toBe(plain);
    expect(c.open(b, scope)).toBe(plain);
    expect(c.open(c.seal('', scope), scope)).toBe('');
    expect(c.open(c.seal('prix: 3 €', scope), scope)).toBe('prix: 3 €');
  });

  test('does not open under another scope, another key, or once altered', () => {
    const c = responseCipher(key);
    const sealed = c.seal('{"ok":true}', scope);
    const [version, iv, tag, body] = sealed.split('.') as [string, string, string, string];
    expect(c.open(sealed, JSON.stringify(['acct_1', false, 'key_2', 'order-1']))).toBeUndefined();
    expect(responseCipher(randomBytes(32)).open(sealed, scope)).toBeUndefined();
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(c.open([version, iv, tag, flipped.toString('base64url')].join('.'), scope)).toBeUndefined();
    expect(c.open([version, iv, Buffer.alloc(16).toString('base64url'), body].join('.'), scope)).toBeUndefined();
  });

  test.each([
    ['another version', (p: string[]) => ['v2', ...p.slice(1)].join('.')],
    ['no version', (p: string[]) => p.slice(1).join('.')],
    ['no body', (p: string[]) => p.slice(0, 3).join('.')],
    ['no tag or body', (p: string[]) => p.slice(0, 2).join('.')],
    ['nothing but the version', (p: string[]) => p[0]!],
    ['not base64url at all', () => 'v1.***.***.***'],
  ])('a sealed text with %s does not open', (_what, edit) => {
    const c = responseCipher(key);
    expect(c.open(edit(c.seal('{"ok":true}', scope).split('.')), scope)).toBeUndefined();
  });
});
