"""Offline verification of ``gca_`` authorization tokens (DECISIONS §4).

A token is ``gca_`` + a compact JWS signed with Ed25519 (``alg`` EdDSA); the public keys are the
service's JWKS (GET /v1/.well-known/jwks.json). The clients fetch the JWKS, keep it for its
``max-age`` (300 s, DECISIONS §4) and then fetch it again before the next verification, so a key
the service removed (after a leak, say) stops verifying within that; and at once when a token names
a key id they do not have, at most once a minute (a rotation is picked up; a flood of made-up key
ids costs one request a minute). A key set past its max-age that cannot be fetched again verifies
nothing (``jwks_unavailable``): the keys it held may be the ones removed.

Only authorization tokens verify: the same key signs other things (audit checkpoints, header
``typ`` ``audit-checkpoint+jwt``, with an ``aud`` and a ``livemode`` of their own and no ``exp``),
so the header's ``typ`` must be ``JWT`` and the claims of an authorization token must be there.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import jwt

from .errors import TokenError

TOKEN_PREFIX = "gca_"
JWKS_PATH = "/.well-known/jwks.json"
JWKS_REFETCH_SECONDS = 60.0
#: How long a fetched key set is used: the ``Cache-Control: max-age`` the service's JWKS carries.
JWKS_MAX_AGE_SECONDS = 300.0
ALGORITHM = "EdDSA"
#: The header ``typ`` of an authorization token (src/tokens/authorization-token.ts).
TOKEN_TYP = "JWT"
#: The claims every authorization token carries; one missing is ``malformed``, ``param`` the claim.
REQUIRED_CLAIMS = ("exp", "iat", "jti", "sub", "aud", "amount", "currency")


class JwksCache:
    """The service's Ed25519 signing keys by ``kid``, and when they were last fetched."""

    def __init__(self) -> None:
        self._keys: dict[str, jwt.PyJWK] | None = None
        #: The last good fetch, and the last attempt (good or not).
        self._fetched_at = float("-inf")
        self._attempted_at = float("-inf")
        #: Counts fetches that ended (stored or failed): a caller that waited for another's fetch
        #: sees it changed and uses that outcome instead of fetching again.
        self.generation = 0
        #: Whether the last fetch failed.
        self.failed = False

    def stale(self) -> bool:
        """The key set is past its max-age: it must be fetched again before it verifies anything."""
        return time.monotonic() - self._fetched_at >= JWKS_MAX_AGE_SECONDS

    def needs_fetch(self, kid: str) -> bool:
        if self._keys is None or self.stale():
            return True
        return kid not in self._keys and time.monotonic() - self._attempted_at >= JWKS_REFETCH_SECONDS

    def store(self, jwks: Any) -> None:
        keys: dict[str, jwt.PyJWK] = {}
        for jwk in jwks.get("keys", []) if isinstance(jwks, Mapping) else []:
            # Only the token-signing keys: the JWKS also publishes other keys (ES256 mandates).
            if not isinstance(jwk, Mapping) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
                continue
            if not isinstance(jwk.get("kid"), str):
                continue
            try:
                keys[jwk["kid"]] = jwt.PyJWK(dict(jwk), algorithm=ALGORITHM)
            except jwt.PyJWTError:
                continue
        self._keys = keys
        self._fetched_at = self._attempted_at = time.monotonic()
        self.generation += 1
        self.failed = False

    def fail(self) -> None:
        """A fetch that failed: known keys are kept, and the next refetch for an unknown key id
        waits the minute as after a success (no fetch storm while the service is unreachable).
        Keys past their max-age stay unusable until a fetch succeeds."""
        self._attempted_at = time.monotonic()
        self.generation += 1
        self.failed = True

    def usable(self) -> bool:
        """Whether the key set may verify now: fetched, and within its max-age."""
        return self._keys is not None and not self.stale()

    def get(self, kid: str) -> jwt.PyJWK | None:
        return (self._keys or {}).get(kid)


def jwks_unavailable(cause: Exception | None) -> TokenError:
    why = f" ({cause})" if cause is not None else ""
    return TokenError(f"The service's key set could not be fetched{why}: nothing was verified.", code="jwks_unavailable")


def token_kid(token: str) -> tuple[str, str]:
    """The compact JWS behind the prefix and its header's ``kid``; TokenError when malformed."""
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
        raise TokenError("Not an authorization token: it must begin with gca_", code="malformed")
    jws = token[len(TOKEN_PREFIX) :]
    try:
        header = jwt.get_unverified_header(jws)
    except jwt.PyJWTError as exc:
        raise TokenError(f"Malformed authorization token: {exc}", code="malformed") from exc
    if header.get("alg") != ALGORITHM:
        raise TokenError(f"Unexpected token algorithm {header.get('alg')!r}: expected EdDSA", code="malformed", param="alg")
    if header.get("typ") != TOKEN_TYP:
        raise TokenError(f"Not an authorization token: header typ {header.get('typ')!r}, expected {TOKEN_TYP!r}", code="malformed", param="typ")
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise TokenError("The token's header names no key (kid)", code="malformed")
    return jws, kid


def verify_with_key(
    jws: str,
    key: jwt.PyJWK | None,
    *,
    account: str,
    livemode: bool,
    issuer: str | None = None,
    leeway: float = 0.0,
) -> dict[str, Any]:
    """Checks the signature, ``exp``, ``aud`` = account, ``livemode`` (and ``iss`` when given)."""
    if key is None:
        raise TokenError("The token is signed with a key the service does not publish", code="unknown_key")
    try:
        claims: dict[str, Any] = jwt.decode(
            jws,
            key=key,
            algorithms=[ALGORITHM],
            audience=account,
            issuer=issuer,
            leeway=leeway,
            options={"require": list(REQUIRED_CLAIMS), "verify_iss": issuer is not None},
        )
    except jwt.ExpiredSignatureError as exc:
        raise TokenError("The token has expired", code="expired", param="exp") from exc
    except jwt.InvalidAudienceError as exc:
        raise TokenError(f"The token was issued for another account, not {account}", code="wrong_audience", param="aud") from exc
    except jwt.InvalidIssuerError as exc:
        raise TokenError(f"The token was issued by another issuer, not {issuer}", code="wrong_issuer") from exc
    except jwt.InvalidSignatureError as exc:
        raise TokenError("The token's signature does not verify", code="bad_signature") from exc
    except jwt.MissingRequiredClaimError as exc:
        raise TokenError(f"Not an authorization token: it lacks the {exc.claim} claim", code="malformed", param=exc.claim) from exc
    except jwt.PyJWTError as exc:
        raise TokenError(f"The token does not verify: {exc}", code="malformed") from exc
    if claims.get("livemode") is not livemode:
        mode = "live" if livemode else "test"
        raise TokenError(f"The token is not a {mode}-mode token", code="wrong_audience", param="livemode")
    return claims
