"""The client's own rules, against a fake of the API (tests/fake_api.py) for the answers the real
service cannot be made to give: arguments refused before anything is sent, answers that are not
the API's, a 409 "still being processed" on a retry, the long-poll's pace and deadline, and the
JWKS (its failure, its refetch after the minute)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import math
import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from spend_auth import APIConnectionError, AsyncSpendAuth, RateLimitError, SpendAuth, SpendAuthError, TokenError, verify_webhook
from spend_auth import _http, tokens
from spend_auth.tools import langchain_tool, openai_agents_tool

from .fake_api import Answer, FakeApi, envelope

BODY = {"agent_id": "agt_x", "amount": 1, "currency": "USD", "vendor": "x.example.com"}
HELD = {"decision_id": "dec_held", "decision": "held", "status": "pending", "reason_code": "approval_required"}
APPROVED = {"decision_id": "dec_ok", "decision": "approved", "status": "approved", "authorization_token": "gca_x"}


# -- arguments refused before the POST ------------------------------------------------------------


@pytest.mark.parametrize("wait", [math.inf, "60", -1, math.nan, True], ids=["inf", "string", "negative", "nan", "bool"])
async def test_a_bad_wait_is_refused_before_anything_is_sent(wait: Any) -> None:
    with FakeApi([Answer(200, APPROVED)]) as fake:
        with SpendAuth(base_url=fake.base_url, api_key="k") as c:
            for call in (lambda: c.authorize(BODY, wait=wait), lambda: c.get_decision("dec_x", wait=wait)):
                with pytest.raises(SpendAuthError) as caught:
                    call()
                assert (caught.value.status, caught.value.code, caught.value.param) == (None, "invalid_request", "wait")
        async with AsyncSpendAuth(base_url=fake.base_url, api_key="k") as a:
            with pytest.raises(SpendAuthError) as caught:
                await a.authorize(BODY, wait=wait)
            assert (caught.value.code, caught.value.param) == ("invalid_request", "wait")
    assert fake.received == []


def test_an_empty_idempotency_key_is_refused_before_sending() -> None:
    with FakeApi([Answer(200, APPROVED)]) as fake, SpendAuth(base_url=fake.base_url, api_key="k") as c:
        for call in (lambda: c.authorize(BODY, idempotency_key=""), lambda: c.capture("dec_x", idempotency_key=""), lambda: c.void("dec_x", idempotency_key="")):
            with pytest.raises(SpendAuthError) as caught:
                call()
            assert (caught.value.code, caught.value.param) == ("invalid_request", "idempotency_key")
    assert fake.received == []


@pytest.mark.parametrize("max_retries", [-1, 1.5, "3", True])
def test_max_retries_must_be_a_whole_number_at_construction(max_retries: Any) -> None:
    for cls in (SpendAuth, AsyncSpendAuth):
        with pytest.raises(SpendAuthError) as caught:
            cls(base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=max_retries)
        assert (caught.value.code, caught.value.param) == ("invalid_request", "max_retries")


def test_the_tools_refuse_a_bad_wait_when_built() -> None:
    with SpendAuth(base_url="http://127.0.0.1:9/v1", api_key="k") as c:
        for build in (openai_agents_tool, langchain_tool):
            with pytest.raises(SpendAuthError) as caught:
                build(c, wait=-1)
            assert caught.value.param == "wait"


def test_the_default_timeout_is_15_s_per_attempt() -> None:
    assert _http.DEFAULT_TIMEOUT == 15.0
    assert SpendAuth(base_url="http://127.0.0.1:9/v1", api_key="k").timeout == 15.0


# -- answers that are not the API's -------------------------------------------------------------


def test_a_2xx_that_is_not_json_is_unexpected_response() -> None:
    page = Answer(200, b"<html>captive portal</html>", {"Content-Type": "text/html", "X-Request-Id": "req_html"})
    with FakeApi([page]) as fake, SpendAuth(base_url=fake.base_url, api_key="k") as c:
        with pytest.raises(SpendAuthError) as caught:
            c.authorize(BODY, idempotency_key="order-1")
        e = caught.value
        assert (e.status, e.code, e.request_id, e.idempotency_key) == (200, "unexpected_response", "req_html", "order-1")
        with pytest.raises(SpendAuthError) as caught:
            c.get_decision("dec_x")
        assert caught.value.code == "unexpected_response"


def test_errors_without_an_envelope_get_the_fallback_codes() -> None:
    with FakeApi([Answer(500, b"Internal Server Error", {"Content-Type": "text/plain"})]) as fake:
        with SpendAuth(base_url=fake.base_url, api_key="k") as c, pytest.raises(SpendAuthError) as caught:
            c.get_decision("dec_x")
    assert (caught.value.status, caught.value.code) == (500, "unexpected_response")
    with FakeApi([Answer(429, b"<html>slow down</html>", {"Retry-After": "1.5"})]) as fake:
        with SpendAuth(base_url=fake.base_url, api_key="k", max_retries=0) as c, pytest.raises(RateLimitError) as caught:
            c.get_decision("dec_x")
    assert (caught.value.status, caught.value.code, caught.value.retry_after) == (429, "rate_limited", 1.5)


def test_a_timeout_is_code_timeout_and_a_refused_connection_network_error() -> None:
    with FakeApi([Answer(200, APPROVED, delay=2)]) as fake:
        with SpendAuth(base_url=fake.base_url, api_key="k", max_retries=0, timeout=0.3) as c, pytest.raises(APIConnectionError) as caught:
            c.authorize(BODY, idempotency_key="order-2")
    assert (caught.value.status, caught.value.code, caught.value.idempotency_key) == (None, "timeout", "order-2")


# -- 409 "still being processed" --------------------------------------------------------------


def test_a_409_on_the_idempotency_key_is_retried_on_a_retry_only() -> None:
    in_progress = envelope(409, "conflict", "Idempotency-Key")
    with FakeApi([Answer(503, {}), in_progress, Answer(200, APPROVED)]) as fake:
        with SpendAuth(base_url=fake.base_url, api_key="k") as c:
            d = c.authorize(BODY)
    assert d.decision_id == "dec_ok" and [r.method for r in fake.received] == ["POST"] * 3
    assert len({r.headers["Idempotency-Key"] for r in fake.received}) == 1
    # On the first attempt it is the caller's own key reused with another body: raised, with the key.
    with FakeApi([in_progress, Answer(200, APPROVED)]) as fake:
        with SpendAuth(base_url=fake.base_url, api_key="k") as c, pytest.raises(SpendAuthError) as caught:
            c.authorize(BODY)
    assert (caught.value.status, caught.value.code, caught.value.param) == (409, "conflict", "Idempotency-Key")
    assert caught.value.idempotency_key == fake.received[0].headers["Idempotency-Key"] and len(fake.received) == 1
    # Another 409 on a retry (not about the key) is not retried.
    with FakeApi([Answer(503, {}), envelope(409, "conflict", None), Answer(200, APPROVED)]) as fake:
        with SpendAuth(base_url=fake.base_url, api_key="k") as c, pytest.raises(SpendAuthError):
            c.authorize(BODY)
    assert len(fake.received) == 2


# -- the long-poll ------------------------------------------------------------------------------


def _held_forever(method: str, path: str) -> Answer:
    return Answer(200, HELD)  # every poll answered at once, still held


def test_polls_answered_at_once_are_a_second_apart_and_none_with_less_than_a_second_left() -> None:
    with FakeApi(_held_forever) as fake, SpendAuth(base_url=fake.base_url, api_key="k") as c:
        started = time.monotonic()
        d = c.authorize(BODY, wait=3.5)
        elapsed = time.monotonic() - started
    polls = [r for r in fake.received if r.method == "GET"]
    assert d.held and 2.9 <= elapsed < 4.5, elapsed
    assert 2 <= len(polls) <= 4, [r.path for r in polls]
    assert all(b.at - a.at >= 0.95 for a, b in zip(polls, polls[1:]))
    # ?wait= is whole seconds, never above what is left, never 0.
    waits = [int(r.path.split("wait=")[1]) for r in polls]
    assert waits[0] == 3 and all(1 <= w <= 3 for w in waits)


@pytest.mark.parametrize("failure", ["503", "network"])
async def test_a_poll_that_fails_returns_the_held_decision_within_the_wait(failure: str) -> None:
    def answers(method: str, path: str) -> Answer:
        if method == "POST":
            return Answer(200, HELD)
        if failure == "503":
            return Answer(503, {"error": {"code": "service_unavailable", "message": "down"}}, {"Retry-After": "20"})
        return Answer(200, HELD, delay=10)  # no answer within the attempt's timeout

    with FakeApi(answers) as fake:
        with SpendAuth(base_url=fake.base_url, api_key="k", timeout=0.5) as c:
            started = time.monotonic()
            d = c.authorize(BODY, wait=2)
            elapsed = time.monotonic() - started
        assert d.held and d.decision_id == "dec_held" and elapsed < 6, elapsed
        async with AsyncSpendAuth(base_url=fake.base_url, api_key="k", timeout=0.5) as a:
            started = time.monotonic()
            d = await a.authorize(BODY, wait=2)
            elapsed = time.monotonic() - started
        assert d.held and elapsed < 6, elapsed


# -- webhooks: tolerance and body ---------------------------------------------------------------


def _signed(event: Any, secret: str = "whsec_t") -> tuple[bytes, str]:
    body = json.dumps(event).encode()
    return body, "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@pytest.mark.parametrize("tolerance", [math.nan, -1, "300"])
def test_a_bad_webhook_tolerance_is_refused_before_anything(tolerance: Any) -> None:
    body, sig = _signed({"id": "evt_1", "event": "authorize.approved", "timestamp": "2026-11-28T00:00:00Z", "data": {}})
    with pytest.raises(SpendAuthError) as caught:
        verify_webhook(body, "sha256=" + "0" * 64, "whsec_t", tolerance=tolerance)  # even a bad signature: refused first
    assert (caught.value.code, caught.value.param) == ("invalid_request", "tolerance")
    assert not isinstance(caught.value, __import__("spend_auth").WebhookVerificationError)
    assert verify_webhook(body, sig, "whsec_t", tolerance=None)["id"] == "evt_1"
    assert verify_webhook(body, sig, "whsec_t", tolerance=math.inf)["id"] == "evt_1"


@pytest.mark.parametrize("missing", ["id", "event", "timestamp"])
def test_a_signed_body_that_is_not_an_event_is_malformed_even_without_tolerance(missing: str) -> None:
    event = {"id": "evt_1", "event": "authorize.approved", "timestamp": "2026-11-28T00:00:00Z", "data": {}}
    del event[missing]
    body, sig = _signed(event)
    with pytest.raises(SpendAuthError) as caught:
        verify_webhook(body, sig, "whsec_t", tolerance=None)
    assert caught.value.code == "malformed"


# -- tokens: typ and claims, the JWKS -----------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Keys:
    """Ed25519 keys of the test's own, published by a fake JWKS (the service's cannot be rotated on demand)."""

    def __init__(self) -> None:
        self.private = {kid: Ed25519PrivateKey.generate() for kid in ("kid_a", "kid_b")}
        self.published = ["kid_a"]

    def jwks(self) -> dict[str, Any]:
        from cryptography.hazmat.primitives import serialization

        keys = []
        for kid in self.published:
            raw = self.private[kid].public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
            keys.append({"kty": "OKP", "crv": "Ed25519", "x": _b64(raw), "kid": kid, "alg": "EdDSA", "use": "sig"})
        return {"keys": keys}

    def token(self, kid: str = "kid_a", typ: str = "JWT", drop: str | None = None) -> str:
        now = int(time.time())
        claims = {"iss": "spend-auth", "aud": "acct_1", "sub": "agt_1", "jti": "dec_1", "amount": 100, "currency": "USD",
                  "vendor": "v.example.com", "category": None, "policy": None, "livemode": True, "iat": now, "exp": now + 900}
        claims.pop(drop or "", None)
        return "gca_" + jwt.encode(claims, self.private[kid], algorithm="EdDSA", headers={"kid": kid, "typ": typ})


def test_only_an_authorization_token_verifies_typ_and_claims() -> None:
    keys = Keys()
    with FakeApi(lambda m, p: Answer(200, keys.jwks())) as fake, SpendAuth(base_url=fake.base_url, api_key="k") as c:
        assert c.verify_token(keys.token(), account="acct_1", livemode=True)["jti"] == "dec_1"
        with pytest.raises(TokenError) as caught:
            c.verify_token(keys.token(typ="audit-checkpoint+jwt"), account="acct_1", livemode=True)
        assert (caught.value.code, caught.value.param) == ("malformed", "typ")
        for claim in ("exp", "iat", "jti", "sub", "amount", "currency"):
            with pytest.raises(TokenError) as caught:
                c.verify_token(keys.token(drop=claim), account="acct_1", livemode=True)
            assert (caught.value.code, caught.value.param) == ("malformed", claim)


def test_an_unknown_kid_refetches_the_jwks_after_the_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    keys = Keys()
    clock = [1_000.0]
    monkeypatch.setattr(tokens.time, "monotonic", lambda: clock[0])
    with FakeApi(lambda m, p: Answer(200, keys.jwks())) as fake, SpendAuth(base_url=fake.base_url, api_key="k") as c:
        c.verify_token(keys.token("kid_a"), account="acct_1", livemode=True)
        keys.published = ["kid_a", "kid_b"]  # a rotation
        clock[0] += 30
        with pytest.raises(TokenError) as caught:
            c.verify_token(keys.token("kid_b"), account="acct_1", livemode=True)
        assert caught.value.code == "unknown_key" and len(fake.received) == 1  # within the minute: not fetched
        clock[0] += 31
        assert c.verify_token(keys.token("kid_b"), account="acct_1", livemode=True)["jti"] == "dec_1"
        assert len(fake.received) == 2
        assert c.verify_token(keys.token("kid_a"), account="acct_1", livemode=True) and len(fake.received) == 2


async def test_a_jwks_that_cannot_be_fetched_is_jwks_unavailable_fetched_once_for_concurrent_calls() -> None:
    keys = Keys()
    with FakeApi([Answer(500, b"down", delay=0.3)]) as fake:
        async with AsyncSpendAuth(base_url=fake.base_url, api_key="k", max_retries=0) as a:
            results = await asyncio.gather(*(a.verify_token(keys.token(), account="acct_1", livemode=True) for _ in range(5)), return_exceptions=True)
        assert all(isinstance(r, TokenError) and r.code == "jwks_unavailable" for r in results), results
        assert len(fake.received) == 1
        with SpendAuth(base_url=fake.base_url, api_key="k", max_retries=0) as c, pytest.raises(TokenError) as caught:
            c.verify_token(keys.token(), account="acct_1", livemode=True)
        assert caught.value.code == "jwks_unavailable"


def test_a_key_the_service_removed_stops_verifying_within_the_jwks_max_age(monkeypatch: pytest.MonkeyPatch) -> None:
    """DECISIONS §4: the key set is kept for its max-age (300 s), then fetched again."""
    keys = Keys()
    clock = [1_000.0]
    monkeypatch.setattr(tokens.time, "monotonic", lambda: clock[0])
    with FakeApi(lambda m, p: Answer(200, keys.jwks())) as fake, SpendAuth(base_url=fake.base_url, api_key="k") as c:
        leaked = keys.token("kid_a")
        assert c.verify_token(leaked, account="acct_1", livemode=True)["jti"] == "dec_1"
        keys.published = ["kid_b"]  # the service removed kid_a
        clock[0] += tokens.JWKS_MAX_AGE_SECONDS - 1
        assert c.verify_token(leaked, account="acct_1", livemode=True) and len(fake.received) == 1
        clock[0] += 1
        with pytest.raises(TokenError) as caught:
            c.verify_token(leaked, account="acct_1", livemode=True)
        assert caught.value.code == "unknown_key" and len(fake.received) == 2
        assert c.verify_token(keys.token("kid_b"), account="acct_1", livemode=True) and len(fake.received) == 2


def test_a_key_set_past_its_max_age_that_cannot_be_fetched_verifies_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    keys = Keys()
    clock = [1_000.0]
    monkeypatch.setattr(tokens.time, "monotonic", lambda: clock[0])
    up = [True]
    with FakeApi(lambda m, p: Answer(200, keys.jwks()) if up[0] else Answer(503, b"down")) as fake, SpendAuth(base_url=fake.base_url, api_key="k", max_retries=0) as c:
        assert c.verify_token(keys.token("kid_a"), account="acct_1", livemode=True)
        up[0] = False
        clock[0] += tokens.JWKS_MAX_AGE_SECONDS
        for _ in range(2):
            with pytest.raises(TokenError) as caught:
                c.verify_token(keys.token("kid_a"), account="acct_1", livemode=True)
            assert caught.value.code == "jwks_unavailable"
        up[0] = True
        assert c.verify_token(keys.token("kid_a"), account="acct_1", livemode=True)["jti"] == "dec_1"
        assert len(fake.received) == 4
