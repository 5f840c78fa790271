import { createRemoteJWKSet, customFetch, errors, jwtVerify } from 'jose';
import type { Fetch } from './api-call.js';
import type { components } from './openapi-types.js';
import { TokenError } from './spend-auth-error.js';

/** The claims of a `gca_` authorization token (DECISIONS §4), as the OpenAPI document describes them. */
export type TokenClaims = components['schemas']['TokenClaims'];

export const TOKEN_PREFIX = 'gca_';
/** An unknown `kid` refetches the key set at most this often (a rotation is picked up; a flood of made-up kids is not). */
export const JWKS_REFETCH_INTERVAL_MS = 60_000;

export interface VerifyTokenOptions {
  /** The account the rail serves (`acct_…`): the token's `aud` must be it. */
  account: string;
  /** The mode the rail runs in: a test-mode token never passes a live check, nor the reverse. */
  livemode: boolean;
}

export type TokenVerifier = (token: string, opts: VerifyTokenOptions) => Promise<TokenClaims>;

/**
 * The header `typ` of an authorization token (src/tokens/authorization-token.ts). The same key
 * signs other things (audit checkpoints, `typ` `audit-checkpoint+jwt`, with `aud` and `livemode`
 * but no `exp`): none of them may pass as a token.
 */
export const TOKEN_TYP = 'JWT';
/** Claims every authorization token carries; one missing is `malformed`, `param` the claim. */
const REQUIRED_CLAIMS = ['exp', 'iat', 'jti', 'sub', 'amount', 'currency'] as const;
const CLAIM_TYPES: Record<(typeof REQUIRED_CLAIMS)[number], 'number' | 'string'> = { exp: 'number', iat: 'number', jti: 'string', sub: 'string', amount: 'number', currency: 'string' };

/**
 * Offline verification of `gca_` tokens against the service's JWKS (`GET /v1/.well-known/jwks.json`):
 * fetched on first use and kept; fetched again only for a `kid` it does not know, at most once a
 * minute. Checks the EdDSA signature, header `typ` `JWT`, the token's claims (`exp`, `iat`, `jti`,
 * `sub`, `amount`, `currency`), `exp`, `aud` = the account and `livemode`; throws TokenError.
 * A token stays valid offline until `exp` even if its agent is frozen meanwhile: the lifetime
 * (15 minutes) is the exposure of a rail that does not ask the service.
 */
export function createTokenVerifier(jwksUrl: string, fetchImpl: Fetch = (req) => fetch(req)): TokenVerifier {
  const keys = createRemoteJWKSet(new URL(jwksUrl), {
    cooldownDuration: JWKS_REFETCH_INTERVAL_MS,
    cacheMaxAge: Number.POSITIVE_INFINITY,
    [customFetch]: (url: string, init: RequestInit) => fetchImpl(new Request(url, init)),
  });
  return async (token, { account, livemode }) => {
    if (typeof token !== 'string' || !token.startsWith(TOKEN_PREFIX)) throw new TokenError(`An authorization token begins with ${TOKEN_PREFIX}.`, 'malformed');
    let claims: TokenClaims;
    try {
      ({ payload: claims } = (await jwtVerify(token.slice(TOKEN_PREFIX.length), keys, { algorithms: ['EdDSA'], typ: TOKEN_TYP, requiredClaims: [...REQUIRED_CLAIMS], audience: account })) as unknown as {
        payload: TokenClaims;
      });
    } catch (err) {
      throw tokenErrorOf(err);
    }
    for (const claim of REQUIRED_CLAIMS) {
      if (typeof claims[claim] !== CLAIM_TYPES[claim]) throw new TokenError(`The token's ${claim} claim is not a ${CLAIM_TYPES[claim]}.`, 'malformed', claim);
    }
    if (claims.livemode !== livemode) {
      throw new TokenError(`The token was issued in ${claims.livemode ? 'live' : 'test'} mode, not ${livemode ? 'live' : 'test'} mode.`, 'wrong_audience', 'livemode');
    }
    return claims;
  };
}

function tokenErrorOf(err: unknown): TokenError {
  if (err instanceof errors.JWTExpired) return new TokenError('The token has expired.', 'expired', 'exp', err);
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'aud' && err.reason !== 'missing') return new TokenError('The token was issued for another account.', 'wrong_audience', 'aud', err);
    if (err.claim === 'typ') return new TokenError(`The token's header typ is not ${TOKEN_TYP}: it is not an authorization token.`, 'malformed', 'typ', err);
    return new TokenError(`The token's ${err.claim} claim does not hold: ${err.message}`, 'malformed', err.claim, err);
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return new TokenError('The token signature does not verify.', 'bad_signature', null, err);
  if (err instanceof errors.JWKSNoMatchingKey) return new TokenError('No key of the service signed this token.', 'unknown_key', null, err);
  if (err instanceof errors.JWKSInvalid || err instanceof errors.JWKSTimeout || (err instanceof errors.JOSEError && err.code === 'ERR_JOSE_GENERIC') || !(err instanceof errors.JOSEError)) {
    // The key set could not be had: nothing was verified, so nothing may pass.
    const cause = err instanceof Error ? err.message : String(err);
    return new TokenError(`The service's key set could not be fetched (${cause}).`, 'jwks_unavailable', null, err);
  }
  return new TokenError(`The token is malformed (${err.message}).`, 'malformed', null, err);
}
