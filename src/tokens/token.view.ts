import { z } from 'zod';
import type { JWK } from 'jose';
import { currencyField, idOf } from '../kernel/view-fields.js';

export const tokenClaimsSchema = z
  .object({
    iss: z.string().describe('Issuer: this service'),
    aud: idOf('acct', 'The account the token is for').describe('The account id (`acct_…`): a rail serving one account rejects the others'),
    sub: idOf('agt', 'The agent'),
    jti: idOf('dec', 'The decision'),
    amount: z.number().int().positive().describe('Approved amount in minor units'),
    currency: currencyField,
    vendor: z.string().describe('The vendor as sent'),
    category: z.string().nullable(),
    policy: idOf('pol', 'The evaluated policy').nullable(),
    livemode: z.boolean().describe('Live-mode approval'),
    iat: z.number().int().describe('Issued at (seconds since the epoch)'),
    exp: z.number().int().describe('Expires at (seconds since the epoch)'),
  })
  .describe('The claims of a `gca_` authorization token.');

export const TOKEN_ERRORS = [
  'malformed',
  'unknown_key',
  'bad_signature',
  'expired',
  'wrong_issuer',
  'wrong_audience',
  'unknown_token',
  'agent_inactive',
  'consumed',
  'voided',
] as const;

export const tokenVerificationSchema = z
  .object({
    valid: z.boolean(),
    claims: tokenClaimsSchema.nullable().describe('The claims when valid; null otherwise'),
    error: z
      .enum(TOKEN_ERRORS)
      .nullable()
      .describe('Why it is not valid (null when valid); `wrong_audience`: another account or mode, `agent_inactive`: the agent is frozen or deactivated; `consumed`: used once already, or captured; `voided`; `expired`: the token, or an approval not captured in time'),
  })
  .describe('The answer of POST /v1/authorization-tokens/verify.');
export type TokenVerificationView = z.infer<typeof tokenVerificationSchema>;

const okpKey = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string().describe('The public key, base64url'),
    kid: z.string().describe('Key id: the `kid` of the tokens and audit checkpoints it verifies'),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
  })
  .describe('An Ed25519 public key: verifies `gca_` tokens and audit checkpoints');

const ecKey = z
  .object({
    kty: z.literal('EC'),
    crv: z.literal('P-256'),
    x: z.string().describe('The public key\'s x coordinate, base64url'),
    y: z.string().describe('The public key\'s y coordinate, base64url'),
    kid: z.string().describe('Key id: the `kid` of the AP2 mandates and payment receipts it verifies'),
    alg: z.literal('ES256'),
    use: z.literal('sig'),
  })
  .describe('A P-256 public key (MANDATE_SIGNING_KEY): verifies AP2 mandates and payment receipts');

export const jwksSchema = z
  .object({
    keys: z
      .array(z.discriminatedUnion('kty', [okpKey, ecKey]))
      .describe('The token keys (Ed25519, the current one first), then the mandate keys (P-256, the current one first); a verifier picks its key by `kid` (and `alg`), never by position'),
  })
  .describe('The JSON Web Key Set that verifies `gca_` tokens, audit checkpoints, AP2 mandates and payment receipts offline.');
export type JwksView = z.infer<typeof jwksSchema>;

/** The published keys: the token keys, then the mandate keys (none when the app has none). */
export const toJwksView = (tokenJwks: { keys: JWK[] }, mandateJwks: readonly JWK[] = []): JwksView => ({
  keys: [
    ...tokenJwks.keys.map((k) => ({ kty: 'OKP' as const, crv: 'Ed25519' as const, x: String(k.x), kid: String(k.kid), alg: 'EdDSA' as const, use: 'sig' as const })),
    ...mandateJwks.map((k) => ({ kty: 'EC' as const, crv: 'P-256' as const, x: String(k.x), y: String(k.y), kid: String(k.kid), alg: 'ES256' as const, use: 'sig' as const })),
  ],
});
