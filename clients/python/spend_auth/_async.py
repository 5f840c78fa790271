"""``AsyncSpendAuth``: the asynchronous client (httpx; sleeps through anyio, so asyncio or trio).

The same code as _sync.py, line for line, with awaits: change both together.
"""

from __future__ import annotations

import time

import anyio
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import httpx

from . import _http
from ._decision import Decision
from ._http import AuthorizeRequest
from .errors import SpendAuthError
from .tokens import JWKS_PATH, JwksCache, jwks_unavailable, token_kid, verify_with_key


class AsyncSpendAuth:
    """Client of the Spend Authorization API, async: the same calls as SpendAuth, awaited.

    ``base_url`` includes ``/v1`` (appended when missing); both fall back to SPEND_AUTH_BASE_URL and
    SPEND_AUTH_API_KEY. Every call retries 429, 503 and network failures up to ``max_retries``
    times (exponential backoff with full jitter, 0.5 s × 2^attempt capped at 8 s, or the
    Retry-After the API sent); every POST sends one Idempotency-Key per call, the same on each retry.
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        max_retries: int = _http.DEFAULT_MAX_RETRIES,
        timeout: float = _http.DEFAULT_TIMEOUT,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.base_url, self._api_key = _http.resolve_settings(base_url, api_key)
        self.max_retries = _http.check_max_retries(max_retries)
        self.timeout = timeout
        self._http = http_client or httpx.AsyncClient()
        self._owns_http = http_client is None
        self._jwks = JwksCache()
        self._jwks_lock: anyio.Lock | None = None

    # -- the calls ------------------------------------------------------------------------------

    async def authorize(
        self,
        request: AuthorizeRequest | Mapping[str, Any],
        *,
        wait: float = 0,
        idempotency_key: str | None = None,
    ) -> Decision:
        """POST /v1/authorize, then, when the decision is held and ``wait`` > 0, long-poll it until a
        human resolves it or ``wait`` seconds have passed. Returns the latest decision (still
        ``held`` when the wait ran out, or when polling failed after its retries); a denied
        decision is returned, not raised."""
        seconds = _http.check_wait(wait)
        key = _http.call_key(idempotency_key)
        decision = Decision(await self._request("POST", "/authorize", json=dict(request), idempotency_key=key))
        return await self._wait_while_held(decision, seconds) if decision.held and seconds > 0 else decision

    async def get_decision(self, decision_id: str, *, wait: float = 0) -> Decision:
        """GET /v1/decisions/:id; with ``wait`` > 0, long-polls a held decision up to that long."""
        seconds = _http.check_wait(wait)
        decision = Decision(await self._request("GET", _http.decision_path(decision_id)))
        return await self._wait_while_held(decision, seconds) if decision.held and seconds > 0 else decision

    async def capture(
        self,
        decision_id: str,
        *,
        amount: int | None = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Decision:
        """POST /v1/decisions/:id/capture: what the rail charged (default: the whole approved amount)."""
        body = _http.capture_body(amount, metadata)
        key = _http.call_key(idempotency_key)
        return Decision(await self._request("POST", _http.decision_path(decision_id, "capture"), json=body, idempotency_key=key))

    async def void(self, decision_id: str, *, idempotency_key: str | None = None) -> Decision:
        """POST /v1/decisions/:id/void: releases an uncaptured approval; its token stops verifying."""
        key = _http.call_key(idempotency_key)
        return Decision(await self._request("POST", _http.decision_path(decision_id, "void"), json={}, idempotency_key=key))

    async def verify_token(self, token: str, *, account: str, livemode: bool, issuer: str | None = None, leeway: float = 0.0) -> dict[str, Any]:
        """Verifies a ``gca_`` token offline against the service's JWKS: header ``typ`` ``JWT``,
        signature (EdDSA), the claims of an authorization token, ``exp``, ``aud`` = ``account``
        (your ``acct_…``), ``livemode``, and ``iss`` when given. Returns the claims; raises
        TokenError (``code`` says why)."""
        jws, kid = token_kid(token)
        if self._jwks.needs_fetch(kid):
            seen = self._jwks.generation
            # One fetch (with its retries) at a time: callers that waited use its outcome.
            self._jwks_lock = self._jwks_lock or anyio.Lock()
            async with self._jwks_lock:
                if self._jwks.generation == seen:
                    try:
                        self._jwks.store(await self._request("GET", JWKS_PATH, authenticated=False))
                    except SpendAuthError as exc:
                        self._jwks.fail()
                        raise jwks_unavailable(exc) from exc
                elif self._jwks.failed:
                    raise jwks_unavailable(None)
        if not self._jwks.usable():
            raise jwks_unavailable(None)
        return verify_with_key(jws, self._jwks.get(kid), account=account, livemode=livemode, issuer=issuer, leeway=leeway)

    # -- plumbing -------------------------------------------------------------------------------

    async def _wait_while_held(self, decision: Decision, wait: float) -> Decision:
        deadline = time.monotonic() + wait
        path = _http.decision_path(decision.decision_id)
        while decision.held:
            n = _http.poll_seconds(deadline - time.monotonic())
            if n < 1:
                break
            started = time.monotonic()
            try:
                decision = Decision(await self._request("GET", path, params={"wait": n}, extra_timeout=n, deadline=deadline))
            except SpendAuthError as exc:
                # The caller has the decision_id and can poll again: the wait ends with the held decision.
                if _http.is_transient(exc):
                    return decision
                raise
            # A service that answers a long-poll at once (shutting down, say) is not asked in a tight loop.
            if decision.held and time.monotonic() - started < 1:
                await anyio.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
        return decision

    async def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        extra_timeout: float = 0,
        authenticated: bool = True,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        """The answer's JSON object, after the retries; SpendAuthError (with the call's
        Idempotency-Key) otherwise. With ``deadline`` (monotonic), no retry waits past it."""
        headers = _http.default_headers(self._api_key if authenticated else None)
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        url = self.base_url + path
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            try:
                response = await self._http.request(method, url, json=json, params=params, headers=headers, timeout=self.timeout + extra_timeout)
            except _http.RETRY_EXCEPTIONS as exc:
                error: SpendAuthError = _http.connection_error(exc, attempt + 1)
                delay = _http.retry_delay(attempt, None)
                if attempt + 1 >= attempts or _http.past(deadline, delay):
                    raise _http.with_key(error, idempotency_key) from exc
                await anyio.sleep(delay)
                continue
            if response.is_success:
                try:
                    return _http.json_object(response)
                except SpendAuthError as exc:
                    raise _http.with_key(exc, idempotency_key) from None
            retry, retry_after = _http.should_retry(response, attempt, idempotency_key is not None)
            delay = _http.retry_delay(attempt, retry_after)
            if not retry or attempt + 1 >= attempts or _http.past(deadline, delay):
                raise _http.with_key(_http.error_from_response(response), idempotency_key)
            await anyio.sleep(delay)
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncSpendAuth:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AsyncSpendAuth(base_url={self.base_url!r})"
