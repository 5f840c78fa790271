"""What the sync and the async client share: settings, retry timing, errors from responses."""

from __future__ import annotations

import math
import os
import random
import uuid
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from datetime import datetime, timezone
from typing import Any, TypedDict

import httpx

from ._generated._meta import __version__
from .errors import APIConnectionError, RateLimitError, SpendAuthError

DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RETRIES = 3
#: The longest ``?wait=`` the API takes on GET /v1/decisions/:id (DECISIONS §3).
MAX_POLL_SECONDS = 30
#: Exponential backoff with full jitter: a random delay in [0, min(CAP, BASE × 2^attempt)].
BACKOFF_BASE = 0.5
BACKOFF_CAP = 8.0
#: A Retry-After above this is not slept through: the error is raised instead.
MAX_RETRY_AFTER = 60.0
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
    one, else full-jitter exponential backoff."""
    if retry_after is not None:
        return retry_after
    return random.uniform(0.0, min(BACKOFF_CAP, BACKOFF_BASE * (2**attempt)))


def should_retry(response: httpx.Response) -> tuple[bool, float | None]:
    """Whether a response is retried (429, 503), and the Retry-After it asked for."""
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
    kwargs: dict[str, Any] = {
        "status": response.status_code,
        "code": code or ("internal_error" if response.status_code >= 500 else "http_error"),
        "param": envelope.get("param") if isinstance(envelope.get("param"), str) else None,
        "request_id": envelope.get("request_id") or response.headers.get("X-Request-Id"),
        "body": body,
    }
    text = message or f"HTTP {response.status_code} from {response.request.method} {response.request.url.path}"
    if response.status_code == 429:
        return RateLimitError(text, retry_after=parse_retry_after(response.headers.get("Retry-After")), **kwargs)
    return SpendAuthError(text, **kwargs)


def connection_error(exc: Exception, attempts: int) -> APIConnectionError:
    return APIConnectionError(
        f"Could not reach the Spend Authorization API after {attempts} attempt(s): {type(exc).__name__}: {exc}",
        status=None,
        code="network_error",
    )


def poll_seconds(remaining: float) -> int:
    """The ``?wait=`` of the next long-poll: what is left of the caller's wait, 1–30 s."""
    return max(1, min(MAX_POLL_SECONDS, math.ceil(remaining)))


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
