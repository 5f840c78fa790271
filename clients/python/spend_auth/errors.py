"""The one error class of the package, and its kinds.

A denied or held decision is not an error: ``authorize`` returns it. ``SpendAuthError`` is raised for
what the API refused (its error envelope: ``code``, ``param``, ``request_id``), for a network failure
that outlived the retries (``status`` None), and, as its subclasses, for a token or a webhook that
does not verify.
"""

from __future__ import annotations

from typing import Any


class SpendAuthError(Exception):
    """An API error (the envelope's fields), or a failure to reach the API after the retries."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        param: str | None = None,
        request_id: str | None = None,
        body: Any = None,
        idempotency_key: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        #: The HTTP status, or None when no answer came (network failure after the retries).
        self.status = status
        #: The machine-readable cause: the envelope's ``code`` (``invalid_request``, ``rate_limited``…),
        #: or the client's own: ``network_error``, ``timeout`` (no answer after the retries),
        #: ``unexpected_response`` (an answer that is not the API's: no error envelope, a 2xx that
        #: is not JSON), ``invalid_request`` (an argument refused before sending, ``status`` None),
        #: or a token/webhook verification code.
        self.code = code
        #: The offending parameter (dotted for nested fields), when the API names one.
        self.param = param
        #: The request's id (``req_…``, equal to the X-Request-Id header): quote it to support.
        self.request_id = request_id
        #: The parsed response body, when there was one.
        self.body = body
        #: The Idempotency-Key of the failed POST (``authorize``, ``capture``, ``void``): call again
        #: with ``idempotency_key=`` this to retry the same request without deciding it twice.
        self.idempotency_key = idempotency_key

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, "
            f"param={self.param!r}, request_id={self.request_id!r}, message={self.message!r})"
        )


class APIConnectionError(SpendAuthError):
    """The API could not be reached (connection refused or reset: ``network_error``) or did not
    answer in time (``timeout``) on any attempt."""


class RateLimitError(SpendAuthError):
    """429 ``rate_limited`` after the retries; ``retry_after`` is the last answer's wait in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class TokenError(SpendAuthError):
    """A ``gca_`` token that does not verify. ``code`` says why, with the service's own token codes
    (``POST /v1/authorization-tokens/verify``): ``malformed`` (also anything that is not an
    authorization token: header ``typ`` other than ``JWT`` (``param`` ``typ``), a claim missing
    (``param`` the claim)), ``unknown_key``, ``bad_signature``, ``expired``, ``wrong_issuer``,
    ``wrong_audience`` (``param`` ``aud``: another account; ``livemode``: another mode); or
    ``jwks_unavailable`` when the service's keys could not be fetched (nothing was verified)."""


class WebhookVerificationError(SpendAuthError):
    """A webhook delivery that does not verify. ``code`` says why: ``signature_invalid`` (none, or
    none that matches), ``timestamp_out_of_tolerance``, ``malformed``, ``replayed`` (the replay
    guard ``seen`` had the event id)."""
