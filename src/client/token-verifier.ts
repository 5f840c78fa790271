import { createRemoteJWKSet, customFetch, errors, jwtVerify } from 'jose';
import type { Fetch } from './api-call.js';
import type { components } from './openapi-types.js';
import { TokenError } from './spend-auth-error.js';

/** The claims of a `gca_` authorization token (DECISIONS §4), as the OpenAPI document describes them. */
export type TokenClaims = components['schemas']['TokenClaims'];

export const TOKEN_PREFIX = 'gca_';
/** An unknown `kid` refetches the key set at most this often (a rotation is picked up; a flood of made-up kids is not). */
export const JWKS_REFETCH_INTERVAL_MS = 60_000;
/** How long a key set is used when its answer names no `max-age` (the service's JWKS carries 300 s, DECISIONS §4). */
export const JWKS_DEFAULT_MAX_AGE_MS = 300_000;

/** The `max-age` of a Cache-Control header, in ms; undefined when absent or unreadable. */
function maxAgeMs(cacheControl: string | null): number | undefined {
  const m = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?\s*(?:,|$)/i.exec(cacheControl ?? '');
  return m ? Number(m[1]) * 1000 : undefined;
}

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
 * fetched on first use and kept for its `Cache-Control: max-age` (DECISIONS §4), then fetched again
 * before the next verification, so a key the service removed stops verifying within max-age; and
 * fetched at once for a `kid` it does not know, at most once a minute. A key set past its max-age
 * that cannot be fetched again verifies nothing (`jwks_unavailable`). Checks the EdDSA signature, header `typ` `JWT`, the token's claims (`exp`, `iat`, `jti`,
 * `sub`, `amount`, `currency`), `exp`, `aud` = the account and `livemode`; throws TokenError.
 * A token stays valid offline until `exp` even if its agent is frozen meanwhile: the lifetime
 * (15 minutes) is the exposure of a rail that does not ask the service.
 */
export function createTokenVerifier(jwksUrl: string, fetchImpl: Fetch = (req) => fetch(req), opts: { now?: () => number } = {}): TokenVerifier {
  const now = opts.now ?? Date.now;
  // When the key set in hand runs out: its answer's max-age after it was fetched.
  let usableUntil = Number.NEGATIVE_INFINITY;
  const keys = createRemoteJWKSet(new URL(jwksUrl), {
    cooldownDuration: JWKS_REFETCH_INTERVAL_MS,
    // Expiry is ours (the answer's max-age): jose's own clock never drops the set.
    cacheMaxAge: Number.POSITIVE_INFINITY,
    [customFetch]: async (url: string, init: RequestInit) => {
      const res = await fetchImpl(new Request(url, init));
      if (res.ok) usableUntil = now() + (maxAgeMs(res.headers.get('cache-control')) ?? JWKS_DEFAULT_MAX_AGE_MS);
      return res;
    },
  });
  return async (token, { account, livemode }) => {
    if (typeof token !== 'string' || !token.startsWith(TOKEN_PREFIX)) throw new TokenError(`An authorization token begins with ${TOKEN_PREFIX}.`, 'malformed');
    let claims: TokenClaims;
    try {
      // Past max-age the set is fetched again first (concurrent callers share the one fetch); if
      // that fails, the keys in hand may be the ones removed, so nothing verifies.
      if (keys.jwks() !== undefined && now() >= usableUntil) await keys.reload();
      if (keys.jwks() !== undefined && now() >= usableUntil) throw new errors.JWKSInvalid('the key set is past its max-age and could not be fetched again');
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
