import { z } from 'zod';
import { listOf } from '../db/pagination.js';
import { idOf, instant, livemodeField, metadataField, minorUnits } from '../kernel/view-fields.js';
import { OPEN_VCT } from './mandate-deps.js';
import type { MandateRow } from './mandates.repository.js';
import { MANDATE_STATUSES } from './mandates.schemas.js';

const coordinate = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

const openMandateSchema = z
  .object({
    vct: z.literal(OPEN_VCT),
    constraints: z
      .array(z.looseObject({ type: z.string().describe('`payment.amount_range`, `payment.allowed_payees`, …') }).describe('An AP2 constraint, its `allowed` entries resolved'))
      .describe('In the order the verifier checks them: `payment.amount_range` first, `payment.reference` last'),
    cnf: z.object({ jwk: z.object({ kty: z.literal('EC'), crv: z.literal('P-256'), x: coordinate, y: coordinate }).strict() }).describe('The agent key that must sign the closed mandate'),
    iat: z.number().int().describe('Issued at (seconds since the epoch)'),
    exp: z.number().int().describe('Expires at (seconds since the epoch)'),
  })
  .describe('The open Payment Mandate the credential discloses, resolved (no digests)');

export const mandateSchema = z
  .object({
    id: idOf('mdt', 'Mandate id: the credential\'s `jti`'),
    object: z.literal('mandate'),
    agent_id: idOf('agt', 'The agent it lets pay'),
    agent_key_id: idOf('akey', 'The agent\'s P-256 key bound as its `cnf`: only that key can close it'),
    status: z
      .enum(MANDATE_STATUSES)
      .describe('`active`; `used` (single-use and approved once, or `max_occurrences` reached); `revoked` (by a call, its agent key\'s revocation or its agent\'s deactivation); `expired` (active past `expires_at`)'),
    credential: z.string().describe('The SD-JWT (RFC 9901) with every disclosure, ending `~`: header `{alg: "ES256", typ: "mandate+sd-jwt", kid}`, verifiable with the JWKS. The agent closes it with its key'),
    open_mandate: openMandateSchema,
    category: z.string().nullable().describe('The category its payments are decided under; null when none'),
    uses: z.number().int().nonnegative().describe('Approved presentations so far'),
    budget_used: minorUnits('Sum of the approved amounts, minor units (voids and expiries do not give it back)'),
    last_used_at: instant('When a presentation was last approved').nullable(),
    expires_at: instant('When it stops verifying'),
    revoked_at: instant('When it was revoked').nullable(),
    created_at: instant('Issuance time'),
    livemode: livemodeField,
    metadata: metadataField,
  })
  .describe('An AP2 open Payment Mandate issued to an agent (DECISIONS §20).');
export type MandateView = z.infer<typeof mandateSchema>;

export const mandateListSchema = listOf(mandateSchema, 'mandates');

/** Whitelisted fields; `expired` is read here, from `now` (never stored). */
export function mandateView(row: MandateRow, now: Date): MandateView {
  const status = row.status === 'active' && row.expires_at.getTime() <= now.getTime() ? 'expired' : row.status;
  return {
    id: row.id,
    object: 'mandate',
    agent_id: row.agent_id,
    agent_key_id: row.agent_key_id,
    status,
    credential: row.credential,
    open_mandate: row.open_mandate as MandateView['open_mandate'],
    category: row.category,
    uses: row.uses,
    budget_used: Number(row.budget_used),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    livemode: row.livemode,
    metadata: row.metadata,
  };
}
