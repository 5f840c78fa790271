"""What the sync and the async client share: settings, retry timing, errors from responses."""

from __future__ import annotations

import math
import os
import random
import time
import uuid
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
from typing import Any, TypedDict

import httpx

from ._generated._meta import __version__
from .errors import APIConnectionError, RateLimitError, SpendAuthError

#: Seconds per attempt (a long-poll adds its own wait), as the TypeScript client's API_REQUEST_TIMEOUT_MS.
DEFAULT_TIMEOUT = 15.0
DEFAULT_MAX_RETRIES = 3
#: The longest ``?wait=`` the API takes on GET /v1/decisions/:id (DECISIONS §3).
MAX_POLL_SECONDS = 30
#: Exponential backoff with full jitter: a random delay in [0, min(CAP, BASE × 2^attempt)].
BACKOFF_BASE = 0.5
BACKOFF_CAP = 8.0
#: A Retry-After above this is not slept through: the error is raised instead.
MAX_RETRY_AFTER = 60.0
#: A Retry-After is slept through, plus a random part of up to this share of it.
RETRY_AFTER_SPREAD = 0.5
RETRY_STATUSES = frozenset({429, 503})
#: Failures where the request may not have arrived, or its answer was lost: retried, and safe to
#: retry because every POST carries the call's Idempotency-Key.
RETRY_EXCEPTIONS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)

USER_AGENT = f"spend-auth-python/{__version__}"


class _AuthorizeRequired(TypedDict):
    agent_id: str
    amount: int
    currency: str
    vendor: str


class AuthorizeRequest(_AuthorizeRequired, total=False):
    """The body of POST /v1/authorize. ``amount`` is in minor units (1999 = $19.99)."""

    category: str
    metadata: dict[str, str | int | float | bool]


def resolve_settings(base_url: str | None, api_key: str | None) -> tuple[str, str | None]:
    """The base address (with ``/v1``, appended when missing) and the key, from the arguments or
    from SPEND_AUTH_BASE_URL and SPEND_AUTH_API_KEY (the variables the MCP server reads)."""
    base = base_url or os.environ.get("SPEND_AUTH_BASE_URL")
    if not base:
        raise ValueError("base_url is required (or set SPEND_AUTH_BASE_URL), e.g. http://127.0.0.1:3000/v1")
    base = base.rstrip("/")
    if not base.endswith("/v1"):
        base += "/v1"
    return base, api_key if api_key is not None else os.environ.get("SPEND_AUTH_API_KEY")


def default_headers(api_key: str | None) -> dict[str, str]:
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


def invalid(message: str, param: str) -> SpendAuthError:
    """A local refusal, before anything is sent (status None, code ``invalid_request``)."""
    return SpendAuthError(message, status=None, code="invalid_request", param=param)


def call_key(idempotency_key: str | None) -> str:
    """The call's Idempotency-Key: the caller's (never empty), else a fresh UUID v4."""
    if idempotency_key is None:
        return new_idempotency_key()
    if not isinstance(idempotency_key, str) or not idempotency_key:
        raise invalid("idempotency_key must be a non-empty string (or None for a fresh one per call).", "idempotency_key")
    return idempotency_key


def check_wait(wait: Any) -> float:
    """``wait`` in seconds: a finite number, 0 or more (not a bool, not a string)."""
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not math.isfinite(wait) or wait < 0:
        raise invalid("wait must be a finite number of seconds, 0 or more.", "wait")
    return float(wait)


def check_max_retries(max_retries: Any) -> int:
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise invalid("max_retries must be a whole number, 0 or more.", "max_retries")
    return max_retries


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Retry-After as delay-seconds or as an HTTP date (RFC 9110); None when absent or unreadable."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
        return max(0.0, seconds) if math.isfinite(seconds) else None
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def retry_delay(attempt: int, retry_after: float | None) -> float:
    """How long to sleep before retry number ``attempt + 1``: the server's Retry-After when it gave
    one, plus a random part of up to half of it (every client shed at one moment is told the same
    Retry-After; coming back together would be shed again together), else full-jitter exponential
    backoff."""
    if retry_after is not None:
        return retry_after + random.uniform(0.0, retry_after * RETRY_AFTER_SPREAD)
    return random.uniform(0.0, min(BACKOFF_CAP, BACKOFF_BASE * (2**attempt)))


def in_progress(response: httpx.Response) -> bool:
    """A 409 naming the Idempotency-Key: on a retry of one call (same key, same body) it means the
    call's earlier attempt is still being processed by the service."""
    if response.status_code != 409:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    envelope = body.get("error") if isinstance(body, Mapping) else None
    return isinstance(envelope, Mapping) and envelope.get("param") == "Idempotency-Key"


def should_retry(response: httpx.Response, attempt: int = 0, idempotent: bool = False) -> tuple[bool, float | None]:
    """Whether a response is retried (429, 503; a 409 "still being processed" on a retry of a call
    with an Idempotency-Key), and the Retry-After it asked for."""
    if idempotent and attempt >= 1 and in_progress(response):
        return True, None
    if response.status_code not in RETRY_STATUSES:
        return False, None
    retry_after = parse_retry_after(response.headers.get("Retry-After"))
    if retry_after is not None and retry_after > MAX_RETRY_AFTER:
        return False, retry_after
    return True, retry_after


def error_from_response(response: httpx.Response) -> SpendAuthError:
    """The error envelope of a non-2xx answer as a SpendAuthError (RateLimitError for 429)."""
    body: Any = None
    try:
        body = response.json()
    except ValueError:
        body = None
    envelope = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(envelope, Mapping):
        envelope = {}
    code = envelope.get("code") if isinstance(envelope.get("code"), str) else None
    message = envelope.get("message") if isinstance(envelope.get("message"), str) else None
    if code is None or message is None:
        # No error envelope (a gateway's page): a 429 is a rate limit whoever answered it.
        code, message = None, None
    request_id = envelope.get("request_id") if code and isinstance(envelope.get("request_id"), str) else None
    kwargs: dict[str, Any] = {
        "status": response.status_code,
        "code": code or ("rate_limited" if response.status_code == 429 else "unexpected_response"),
        "param": envelope.get("param") if code and isinstance(envelope.get("param"), str) else None,
        "request_id": request_id or response.headers.get("X-Request-Id"),
        "body": body,
    }
    text = message or f"The service answered HTTP {response.status_code} without an error object ({response.request.method} {response.request.url.path})."
    if response.status_code == 429:
        return RateLimitError(text, retry_after=parse_retry_after(response.headers.get("Retry-After")), **kwargs)
    return SpendAuthError(text, **kwargs)


def connection_error(exc: Exception, attempts: int) -> APIConnectionError:
    timed_out = isinstance(exc, httpx.TimeoutException)
    what = "did not answer in time" if timed_out else "could not be reached"
    return APIConnectionError(
        f"The Spend Authorization API {what} after {attempts} attempt(s): {type(exc).__name__}: {exc}",
        status=None,
        code="timeout" if timed_out else "network_error",
    )


def json_object(response: httpx.Response) -> dict[str, Any]:
    """The JSON object of a 2xx answer; SpendAuthError ``unexpected_response`` for anything else."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise SpendAuthError(
            f"The service answered HTTP {response.status_code} with a body that is not a JSON object.",
            status=response.status_code,
            code="unexpected_response",
            request_id=response.headers.get("X-Request-Id"),
        )
    return body


def poll_seconds(remaining: float) -> int:
    """The ``?wait=`` of the next long-poll: the whole seconds left of the caller's wait, at most
    30; 0 when less than a second is left (then no poll is made)."""
    return min(MAX_POLL_SECONDS, math.floor(remaining)) if remaining >= 1 else 0


def is_transient(error: SpendAuthError) -> bool:
    """A failure the client retries (no answer, 429, 503): while waiting on a held decision it
    ends the wait with that decision instead of being raised."""
    return isinstance(error, APIConnectionError) or error.status in RETRY_STATUSES


def past(deadline: float | None, delay: float) -> bool:
    """Whether sleeping ``delay`` seconds would reach the deadline (monotonic) of a wait."""
    return deadline is not None and time.monotonic() + delay >= deadline


def with_key(error: SpendAuthError, idempotency_key: str | None) -> SpendAuthError:
    """The error, carrying the call's Idempotency-Key (to call again with it)."""
    if idempotency_key is not None:
        error.idempotency_key = idempotency_key
    return error


def decision_path(decision_id: str, action: str = "") -> str:
    from urllib.parse import quote

    return f"/decisions/{quote(decision_id, safe='')}{'/' + action if action else ''}"


def capture_body(amount: int | None, metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if amount is not None:
        body["amount"] = amount
    if metadata is not None:
        body["metadata"] = dict(metadata)
    return body
