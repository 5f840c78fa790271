import { z } from 'zod';
import { listOf } from '../db/pagination.js';
import { idOf, instant, livemodeField } from '../kernel/view-fields.js';
import type { AgentKeyRow } from './agent-keys.repository.js';

const coordinate = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export const agentKeySchema = z
  .object({
    id: idOf('akey', 'Agent key id'),
    object: z.literal('agent_key'),
    agent_id: idOf('agt', 'The agent whose requests this key signs'),
    name: z.string().nullable().describe('Display name; null when none was given'),
    alg: z.enum(['ed25519', 'ecdsa-p256-sha256']).describe('The RFC 9421 algorithm its signatures use: `ed25519` for an Ed25519 key, `ecdsa-p256-sha256` for a P-256 key'),
    jwk: z
      .union([
        z.object({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: coordinate }).strict(),
        z.object({ kty: z.literal('EC'), crv: z.literal('P-256'), x: coordinate, y: coordinate }).strict(),
      ])
      .describe('The public key, exactly these members'),
    thumbprint: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/)
      .describe("RFC 7638 SHA-256 JWK thumbprint, base64url: the `keyid` of the key's signatures"),
    directory_url: z
      .string()
      .nullable()
      .describe('The origin of the key directory that must list this key for it to verify (with a `Signature-Agent` member equal to it); null for a key not tied to one'),
    status: z.enum(['active', 'revoked']).describe('`revoked` keys never verify again'),
    last_used_at: instant('When a request it signed was last verified').nullable(),
    revoked_at: instant('When it was revoked').nullable(),
    created_at: instant('Registration time'),
    livemode: livemodeField,
  })
  .describe("An agent's public signing key (RFC 9421 HTTP Message Signatures, `tag=\"web-bot-auth\"`).");
export type AgentKeyView = z.infer<typeof agentKeySchema>;

export const agentKeyListSchema = listOf(agentKeySchema, 'agent keys');

/** Whitelisted fields, the JWK rebuilt from its known members (the column holds only those). */
export function agentKeyView(row: AgentKeyRow): AgentKeyView {
  const { kty, x, y } = row.jwk;
  const jwk = kty === 'EC' ? { kty: 'EC' as const, crv: 'P-256' as const, x: x!, y: y! } : { kty: 'OKP' as const, crv: 'Ed25519' as const, x: x! };
  return {
    id: row.id,
    object: 'agent_key',
    agent_id: row.agent_id,
    name: row.name,
    alg: row.alg,
    jwk,
    thumbprint: row.thumbprint,
    directory_url: row.directory_url,
    status: row.status,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    livemode: row.livemode,
  };
}
