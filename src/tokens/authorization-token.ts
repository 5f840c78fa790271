import { sign } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, errors as joseErrors } from 'jose';
import type { SigningKeys } from './signing-keys.js';

export const TOKEN_PREFIX = 'gca_';
export const TOKEN_TTL_SECONDS = 15 * 60;
export const DEFAULT_ISSUER = 'spend-auth';

export interface TokenClaims {
  iss: string;
  /** The account id (`acct_…`): a rail serving one account rejects another account's tokens offline. */
  aud: string;
  sub: string;
  jti: string;
  amount: number;
  currency: string;
  vendor: string;
  category: string | null;
  policy: string | null;
  livemode: boolean;
  iat: number;
  exp: number;
}

export interface TokenSigner {
  issuer: string;
  keys: SigningKeys;
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/**
 * `gca_` + a compact JWS (EdDSA/Ed25519) over the claims, byte for byte what jose's CompactSign
 * writes (protected header {alg, kid, typ}), signed by node:crypto in the calling thread.
 */
export async function signAuthorizationToken(
  signer: TokenSigner,
  c: Omit<TokenClaims, 'iss' | 'iat' | 'exp'>,
  now: Date,
  ttlSeconds = TOKEN_TTL_SECONDS,
): Promise<{ token: string; expiresAt: Date }> {
  const iat = Math.floor(now.getTime() / 1000);
  const claims: TokenClaims = { iss: signer.issuer, ...c, iat, exp: iat + ttlSeconds };
  const { kid, signingKey } = signer.keys.current;
  const signingInput = `${base64url(JSON.stringify({ alg: 'EdDSA', kid, typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
  const jws = `${signingInput}.${base64url(sign(null, Buffer.from(signingInput), signingKey))}`;
  return { token: TOKEN_PREFIX + jws, expiresAt: new Date((iat + ttlSeconds) * 1000) };
}

export type VerifyResult =
  | { valid: true; claims: TokenClaims; error: null }
  | {
      valid: false;
      claims: null;
      error: 'malformed' | 'unknown_key' | 'bad_signature' | 'expired' | 'wrong_issuer' | 'wrong_audience' | 'unknown_token' | 'agent_inactive' | 'consumed' | 'voided';
    };

/** Verifies signature, issuer and expiry; never throws for a bad token. */
export async function verifyAuthorizationToken(signer: TokenSigner, token: string, now: Date): Promise<VerifyResult> {
  const fail = (error: Exclude<VerifyResult['error'], null>): VerifyResult => ({ valid: false, claims: null, error });
  if (!token.startsWith(TOKEN_PREFIX)) return fail('malformed');
  const jws = token.slice(TOKEN_PREFIX.length);
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(jws);
    if (header.alg !== 'EdDSA') return fail('malformed');
    kid = header.kid;
  } catch {
    return fail('malformed');
  }
  const key = kid ? signer.keys.verifyKeys.get(kid) : undefined;
  if (!key) return fail('unknown_key');
  let claims: TokenClaims;
  try {
    const { payload } = await compactVerify(jws, key, { algorithms: ['EdDSA'] });
    claims = JSON.parse(new TextDecoder().decode(payload)) as TokenClaims;
  } catch (err) {
    if (err instanceof joseErrors.JWSSignatureVerificationFailed) return fail('bad_signature');
    return fail('malformed');
  }
  if (claims.iss !== signer.issuer) return fail('wrong_issuer');
  if (typeof claims.exp !== 'number' || claims.exp <= Math.floor(now.getTime() / 1000)) return fail('expired');
  return { valid: true, claims, error: null };
}
