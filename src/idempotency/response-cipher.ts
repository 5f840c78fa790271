import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;

/**
 * AES-256-GCM for stored idempotent responses: a stored body may hold a raw API key, a webhook
 * secret, a vault token or a gca_ token. The scope (account, mode, API key, Idempotency-Key) is
 * authenticated data, so a ciphertext copied onto another row does not open.
 */
export interface ResponseCipher {
  seal(plain: string, scope: string): string;
  /** Undefined when the text does not open with this key and scope (tampered, or the key changed). */
  open(sealed: string, scope: string): string | undefined;
}

export function responseCipher(key: Buffer): ResponseCipher {
  if (key.length !== 32) throw new Error('The idempotency encryption key must be 32 bytes');
  return {
    seal(plain, scope) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(scope, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed, scope) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url')).setAAD(Buffer.from(scope, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The same cipher under a key of its own use, derived (HKDF-SHA-256, `label` as info) from the
 * server's encryption key: stored secrets of one kind never open with another kind's key.
 */
export function derivedCipher(serverKey: Buffer, label: string): ResponseCipher {
  return responseCipher(Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), label, 32)));
}
