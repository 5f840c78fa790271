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

export const jwksSchema = z
  .object({
    keys: z
      .array(
        z
          .object({
            kty: z.literal('OKP'),
            crv: z.literal('Ed25519'),
            x: z.string().describe('The public key, base64url'),
            kid: z.string().describe('Key id: the `kid` of the tokens it verifies'),
            alg: z.literal('EdDSA'),
            use: z.literal('sig'),
          })
          .describe('An Ed25519 public key'),
      )
      .describe('The current signing key first, then any still accepted'),
  })
  .describe('The JSON Web Key Set that verifies `gca_` tokens offline.');
export type JwksView = z.infer<typeof jwksSchema>;

export const toJwksView = (jwks: { keys: JWK[] }): JwksView => ({
  keys: jwks.keys.map((k) => ({ kty: 'OKP', crv: 'Ed25519', x: String(k.x), kid: String(k.kid), alg: 'EdDSA', use: 'sig' })),
});
