"""The synchronous client against the real service: decisions, waiting, retries, errors."""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from spend_auth import API_VERSION, APIConnectionError, Decision, RateLimitError, SpendAuth, SpendAuthError
from spend_auth._generated.models.decision import Decision as DecisionModel

from .conftest import HOLD_ABOVE, World
from .proxy import DroppingProxy
from .service import free_port


def test_approved_decision_reads_as_dict_attributes_and_model(client: SpendAuth, world: World) -> None:
    d = client.authorize(world.request())
    assert isinstance(d, Decision) and isinstance(d, dict)
    assert d["decision"] == d.decision == "approved" and d.approved and not d.held
    assert d.decision_id.startswith("dec_") and d.status == "approved"
    assert d.authorization_token is not None and d.authorization_token.startswith("gca_")
    assert json.loads(json.dumps(d))["decision_id"] == d.decision_id
    model = d.model
    assert isinstance(model, DecisionModel) and model.decision_id == d.decision_id
    assert client.get_decision(d.decision_id) == d


def test_denied_is_a_returned_decision_not_an_error(client: SpendAuth, world: World) -> None:
    d = client.authorize(world.request(vendor="blocked.example"))
    assert d.decision == "denied" and d.reason_code == "policy_denied" and d.reason
    assert d.authorization_token is None


def test_held_without_wait_returns_at_once(client: SpendAuth, world: World) -> None:
    started = time.monotonic()
    d = client.authorize(world.request(amount=HOLD_ABOVE + 1))
    assert d.decision == "held" and d.status == "pending" and d.reason_code == "approval_required"
    assert time.monotonic() - started < 5


def test_held_then_approved_by_a_reviewer_while_authorize_waits(client: SpendAuth, world: World) -> None:
    request = world.request(amount=HOLD_ABOVE + 100)
    result: dict[str, Decision] = {}
    waiter = threading.Thread(target=lambda: result.setdefault("d", client.authorize(request, wait=90)))
    started = time.monotonic()
    waiter.start()
    approved = world.approve_when_pending(request["vendor"])
    waiter.join(100)
    d = result["d"]
    assert d.decision == "approved" and d.status == "approved" and d.authorization_token
    assert d.decision_id == approved["decision_id"]
    assert time.monotonic() - started < 85  # it returned once approved, not at the end of the wait


def test_a_wait_that_runs_out_returns_the_held_decision(client: SpendAuth, world: World) -> None:
    started = time.monotonic()
    d = client.authorize(world.request(amount=HOLD_ABOVE + 1), wait=2)
    elapsed = time.monotonic() - started
    assert d.decision == "held" and d.status == "pending"
    # Polls ask for whole seconds and none is made with less than a second left (as in TypeScript):
    # the call returns within the last second of the wait, never after it.
    assert 1 <= elapsed < 10
    assert client.get_decision(d.decision_id, wait=1).held


def test_a_retry_after_a_dropped_answer_gets_the_same_decision(world: World) -> None:
    upstream = world.base_url.removesuffix("/v1")
    with DroppingProxy(upstream, ("POST", "/v1/authorize")) as proxy, SpendAuth(base_url=proxy.base_url, api_key=world.api_key) as c:
        d = c.authorize(world.request())
    first, second = [s for s in proxy.seen if s.path == "/v1/authorize"]
    assert first.dropped and first.status == 200 and not second.dropped
    # One key for the call, sent again on its retry; the service replayed its first decision.
    assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]
    assert second.response_headers.get("idempotent-replayed") == "true"
    assert d.decision == "approved" and d.decision_id == json.loads(first.body)["decision_id"]


def test_each_call_gets_its_own_idempotency_key_and_a_given_one_is_sent(world: World) -> None:
    keys: list[str] = []
    hooks = {"request": [lambda r: keys.append(r.headers.get("Idempotency-Key"))]}
    with SpendAuth(base_url=world.base_url, api_key=world.api_key, http_client=httpx.Client(event_hooks=hooks)) as c:
        body = world.request()
        a = c.authorize(body)
        b = c.authorize(body, idempotency_key="order-4711-" + body["vendor"])
        again = c.authorize(body, idempotency_key="order-4711-" + body["vendor"])
    assert keys[0] != keys[1] and keys[1] == keys[2] == "order-4711-" + body["vendor"]
    assert a.decision_id != b.decision_id and again.decision_id == b.decision_id


def test_a_400_raises_the_typed_error_and_is_not_retried(world: World) -> None:
    statuses: list[int] = []
    hooks = {"response": [lambda r: statuses.append(r.status_code)]}
    with SpendAuth(base_url=world.base_url, api_key=world.api_key, http_client=httpx.Client(event_hooks=hooks)) as c:
        with pytest.raises(SpendAuthError) as caught:
            c.authorize(world.request(amount=-5))
    e = caught.value
    assert (e.status, e.code, e.param) == (400, "invalid_request", "amount")
    assert e.request_id and e.request_id.startswith("req_") and "amount" in e.message.lower()
    assert statuses == [400]


def test_unknown_decision_is_not_found(client: SpendAuth) -> None:
    with pytest.raises(SpendAuthError) as caught:
        client.get_decision("dec_doesnotexist")
    assert (caught.value.status, caught.value.code) == (404, "not_found")


def test_a_bad_key_is_unauthorized(world: World) -> None:
    with SpendAuth(base_url=world.base_url, api_key="gc_live_" + "x" * 40) as c, pytest.raises(SpendAuthError) as caught:
        c.authorize(world.request())
    assert (caught.value.status, caught.value.code) == (401, "unauthorized")


def test_network_failure_after_the_retries_has_no_status() -> None:
    with SpendAuth(base_url=f"http://127.0.0.1:{free_port()}/v1", api_key="gc_test_x", max_retries=2) as c:
        with pytest.raises(APIConnectionError) as caught:
            c.authorize({"agent_id": "agt_x", "amount": 1, "currency": "USD", "vendor": "x.com"})
    assert caught.value.status is None and caught.value.code == "network_error"
    assert "3 attempt" in caught.value.message


def test_capture_and_void(client: SpendAuth, world: World) -> None:
    a = client.authorize(world.request(amount=2_000))
    captured = client.capture(a.decision_id, amount=1_500, metadata={"rail_ref": "ch_1"})
    assert captured.decision_id == a.decision_id
    assert captured["capture"]["status"] == "captured" and captured["capture"]["captured_amount"] == 1_500
    with pytest.raises(SpendAuthError) as caught:
        client.capture(a.decision_id)
    assert (caught.value.status, caught.value.code) == (409, "conflict")
    b = client.authorize(world.request())
    assert client.void(b.decision_id)["capture"]["status"] == "voided"


def test_429_waits_for_retry_after_then_succeeds(world: World) -> None:
    """The limited account allows 2 requests a minute (fixed windows on the minute)."""
    limited = world.service.limited
    base = world.base_url
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {limited.live_key}"}, timeout=30) as raw:
        policy = _until_ok(raw, "POST", "/policies", {"name": "limited", "budget_monthly": 1_000_000, "budget_single_max": 100_000})
        agent = _until_ok(raw, "POST", "/agents", {"name": "limited agent", "policy_id": policy["id"]})
        # Spend the window, unless it ends within 6 s (then the next one, so the call below meets a 429).
        while True:
            res = raw.get("/api-keys/self")
            if res.status_code == 429 and int(res.headers["Retry-After"]) >= 6:
                break
            time.sleep(1 if res.status_code == 429 else 0)
    body = {"agent_id": agent["id"], "amount": 100, "currency": "USD", "vendor": "limited.example.com"}
    with SpendAuth(base_url=base, api_key=limited.live_key, max_retries=0) as c, pytest.raises(RateLimitError) as caught:
        c.authorize(body)
    e = caught.value
    assert (e.status, e.code) == (429, "rate_limited") and e.retry_after is not None and e.retry_after >= 1

    seen: list[tuple[int, str | None, float]] = []
    hooks = {"response": [lambda r: seen.append((r.status_code, r.headers.get("Retry-After"), time.monotonic()))]}
    with SpendAuth(base_url=base, api_key=limited.live_key, http_client=httpx.Client(event_hooks=hooks)) as c:
        d = c.authorize(body)
    assert d.decision == "approved"
    assert [s for s, _, _ in seen] == [429, 200]
    retry_after = float(seen[0][1] or 0)
    waited = seen[1][2] - seen[0][2]
    assert waited >= retry_after - 0.5, (waited, retry_after)


def _until_ok(raw: httpx.Client, method: str, path: str, body: dict) -> dict:
    """A setup request, sent again after the window when the limit already refused it."""
    for _ in range(3):
        res = raw.request(method, path, json=body)
        if res.status_code != 429:
            return res.raise_for_status().json()
        time.sleep(float(res.headers["Retry-After"]) + 0.2)
    raise AssertionError(f"{method} {path} kept answering 429")


def test_versions() -> None:
    import spend_auth

    assert API_VERSION == "v1"
    root = json.load(open(__import__("pathlib").Path(__file__).resolve().parents[3] / "package.json"))
    assert spend_auth.__version__ == root["version"]
