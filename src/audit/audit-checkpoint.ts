import { compactVerify, decodeProtectedHeader, SignJWT } from 'jose';
import { z } from 'zod';
import { invalid } from '../kernel/errors.js';
import type { SigningKeys } from '../tokens/signing-keys.js';

/** The `typ` header of a checkpoint: never mistaken for a `gca_` token (`typ: JWT`), nor one for it. */
export const CHECKPOINT_TYP = 'audit-checkpoint+jwt';
/** Longer than any compact JWS of these claims; a bigger value is refused before any parsing. */
export const CHECKPOINT_MAX_LENGTH = 2_048;

const HASH = /^[0-9a-f]{64}$/;

const claimsSchema = z.strictObject({
  aud: z.string().min(1),
  livemode: z.boolean(),
  sequence: z.number().int().nonnegative(),
  head_hash: z.string().regex(HASH),
  iat: z.number().int(),
});

/** What a checkpoint states: at `iat`, the record at `sequence` of this account and mode's chain had hash `head_hash`. */
export type CheckpointClaims = z.infer<typeof claimsSchema>;

/** A compact JWS (EdDSA) with the token-signing key; its `kid` is in the JWKS, so anyone can check it offline. */
export async function signCheckpoint(keys: SigningKeys, claims: Omit<CheckpointClaims, 'iat'>, now: Date): Promise<string> {
  const { aud, ...rest } = claims;
  return new SignJWT(rest)
    .setProtectedHeader({ alg: 'EdDSA', kid: keys.current.kid, typ: CHECKPOINT_TYP })
    .setAudience(aud)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .sign(keys.current.key);
}

const refuse = (why: string) => invalid(`checkpoint: ${why}`, 'checkpoint');

/**
 * The claims of a checkpoint this service signed for this account and mode. Anything else (not a
 * JWS, another `typ`, a key not in the JWKS, a bad signature, another account or mode) is a 400
 * naming `checkpoint`.
 */
export async function openCheckpoint(keys: SigningKeys, jws: string, scope: { accountId: string; livemode: boolean }): Promise<CheckpointClaims> {
  let header;
  try {
    header = decodeProtectedHeader(jws);
  } catch {
    throw refuse('not a compact JWS as GET /v1/audit-logs/verify returns it');
  }
  if (header.typ !== CHECKPOINT_TYP || header.alg !== 'EdDSA') throw refuse(`not an audit checkpoint (header typ "${CHECKPOINT_TYP}", alg EdDSA)`);
  const key = typeof header.kid === 'string' ? keys.verifyKeys.get(header.kid) : undefined;
  if (!key) throw refuse('signed by a key that is not in this service\'s JWKS');
  let payload: Uint8Array;
  try {
    ({ payload } = await compactVerify(jws, key, { algorithms: ['EdDSA'] }));
  } catch {
    throw refuse('the signature does not verify');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    throw refuse('the claims are not JSON');
  }
  const claims = claimsSchema.safeParse(parsed);
  if (!claims.success) throw refuse('the claims are not {aud, livemode, sequence, head_hash, iat}');
  if (claims.data.aud !== scope.accountId || claims.data.livemode !== scope.livemode) throw refuse('issued for another account or mode');
  return claims.data;
}
