import { z } from 'zod';
import type { RequestSignature } from '../kernel/caller.js';
import { idOf } from '../kernel/view-fields.js';

/** The signature a request was made under, as decisions and captures record it (DECISIONS §19, "Recorded"). */
export const requestSignatureSchema = z
  .object({
    agent_key_id: idOf('akey', 'The agent key that verified the signature'),
    keyid: z.string().describe("The signature's `keyid`: the key's JWK thumbprint (RFC 7638)"),
    alg: z.enum(['ed25519', 'ecdsa-p256-sha256']).describe("The key's algorithm"),
    signature_agent: z.string().nullable().describe('The covered `Signature-Agent` origin (a key directory); null when none was signed'),
    created: z.number().int().describe("The signature's `created` parameter, Unix seconds, as signed"),
    nonce: z.string().describe("The signature's `nonce`, unique per key (a replay is refused)"),
  })
  .describe('The RFC 9421 `web-bot-auth` signature a request was verified under. It holds no secret.');
export type RequestSignatureView = z.infer<typeof requestSignatureSchema>;

/** Rebuilt field by field: jsonb keeps its own key order, the API shows the documented one. */
export function requestSignatureView(s: RequestSignature | null | undefined): RequestSignatureView | null {
  if (!s) return null;
  return { agent_key_id: s.agent_key_id, keyid: s.keyid, alg: s.alg, signature_agent: s.signature_agent ?? null, created: Number(s.created), nonce: s.nonce };
}
