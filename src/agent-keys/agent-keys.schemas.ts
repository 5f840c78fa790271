import { z } from 'zod';
import { cursorSchema } from '../db/pagination.js';
import { limitSchema, trimmedText } from '../kernel/schemas.js';

/**
 * Checked in jwk.ts, not here: every refusal names `jwk` (or `jwk.kid`), whichever member is wrong
 * (DECISIONS §19). The document describes the two shapes accepted.
 */
const jwkField = z.record(z.string(), z.unknown()).meta({
  description:
    'The public key, a JWK: `{kty: "OKP", crv: "Ed25519", x}` or `{kty: "EC", crv: "P-256", x, y}`. Other members are dropped, except `d` (a private key: refused) and `kid` (refused unless it is the thumbprint)',
  required: ['kty', 'crv', 'x'],
  properties: {
    kty: { type: 'string', enum: ['OKP', 'EC'] },
    crv: { type: 'string', enum: ['Ed25519', 'P-256'] },
    x: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    y: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: 'P-256 only' },
    kid: { type: 'string', description: "If given, the key's RFC 7638 SHA-256 thumbprint" },
  },
});

/** Checked in agent-keys.service.ts (an https origin, nothing else); the document says what a schema can. */
const directoryUrl = z
  .string()
  .max(2048)
  .meta({
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]://[^/?#\\u0000]+/?$',
    description: 'An https origin (scheme `https`, a host, an optional port; no path, query or fragment) serving the key directory at `/.well-known/http-message-signatures-directory`, which must list this key',
  });

export const createAgentKeySchema = z.strictObject({
  jwk: jwkField,
  directory_url: directoryUrl.optional(),
  name: trimmedText(200).optional(),
});

export const listAgentKeysQuery = z.strictObject({
  limit: limitSchema(20, 100),
  cursor: cursorSchema().optional(),
  status: z.enum(['active', 'revoked']).optional(),
});

export type CreateAgentKeyInput = z.output<typeof createAgentKeySchema>;
export type ListAgentKeysQuery = z.output<typeof listAgentKeysQuery>;
