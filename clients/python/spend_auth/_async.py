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
from .tokens import JWKS_PATH, JwksCache, token_kid, verify_with_key


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
        self.max_retries = max_retries
        self.timeout = timeout
        self._http = http_client or httpx.AsyncClient()
        self._owns_http = http_client is None
        self._jwks = JwksCache()

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
        ``held`` when the wait ran out); a denied decision is returned, not raised."""
        key = idempotency_key or _http.new_idempotency_key()
        decision = Decision((await self._request("POST", "/authorize", json=dict(request), idempotency_key=key)).json())
        if decision.held and wait > 0:
            decision = await self._poll(decision.decision_id, wait, decision)
        return decision

    async def get_decision(self, decision_id: str, *, wait: float = 0) -> Decision:
        """GET /v1/decisions/:id; with ``wait`` > 0, long-polls a held decision up to that long."""
        return await self._poll(decision_id, wait, None)

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
        key = idempotency_key or _http.new_idempotency_key()
        return Decision((await self._request("POST", _http.decision_path(decision_id, "capture"), json=body, idempotency_key=key)).json())

    async def void(self, decision_id: str, *, idempotency_key: str | None = None) -> Decision:
        """POST /v1/decisions/:id/void: releases an uncaptured approval; its token stops verifying."""
        key = idempotency_key or _http.new_idempotency_key()
        return Decision((await self._request("POST", _http.decision_path(decision_id, "void"), json={}, idempotency_key=key)).json())

    async def verify_token(self, token: str, *, account: str, livemode: bool, issuer: str | None = None, leeway: float = 0.0) -> dict[str, Any]:
        """Verifies a ``gca_`` token offline against the service's JWKS: signature (EdDSA), ``exp``,
        ``aud`` = ``account`` (your ``acct_…``), ``livemode``, and ``iss`` when given. Returns the
        claims; raises TokenError (``code`` says why)."""
        jws, kid = token_kid(token)
        if self._jwks.needs_fetch(kid):
            self._jwks.store((await self._request("GET", JWKS_PATH, authenticated=False)).json())
        return verify_with_key(jws, self._jwks.get(kid), account=account, livemode=livemode, issuer=issuer, leeway=leeway)

    # -- plumbing -------------------------------------------------------------------------------

    async def _poll(self, decision_id: str, wait: float, decision: Decision | None) -> Decision:
        deadline = time.monotonic() + max(0.0, wait)
        while decision is None or decision.held:
            remaining = deadline - time.monotonic()
            if decision is not None and remaining <= 0:
                break
            n = _http.poll_seconds(remaining) if remaining > 0 else 0
            params = {"wait": n} if n else None
            decision = Decision((await self._request("GET", _http.decision_path(decision_id), params=params, extra_timeout=n)).json())
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
    ) -> httpx.Response:
        headers = _http.default_headers(self._api_key if authenticated else None)
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        url = self.base_url + path
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            try:
                response = await self._http.request(method, url, json=json, params=params, headers=headers, timeout=self.timeout + extra_timeout)
            except _http.RETRY_EXCEPTIONS as exc:
                if attempt + 1 >= attempts:
                    raise _http.connection_error(exc, attempts) from exc
                await anyio.sleep(_http.retry_delay(attempt, None))
                continue
            if response.is_success:
                return response
            retry, retry_after = _http.should_retry(response)
            if not retry or attempt + 1 >= attempts:
                raise _http.error_from_response(response)
            await anyio.sleep(_http.retry_delay(attempt, retry_after))
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
