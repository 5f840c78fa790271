"""The asynchronous client against the real service: the same calls, awaited."""

from __future__ import annotations

import asyncio
import json

import pytest

from spend_auth import AsyncSpendAuth, SpendAuthError, TokenError

from .conftest import HOLD_ABOVE, World
from .proxy import DroppingProxy


async def test_approved_and_denied(aclient: AsyncSpendAuth, world: World) -> None:
    approved, denied = await asyncio.gather(aclient.authorize(world.request()), aclient.authorize(world.request(vendor="blocked.example")))
    assert approved.decision == "approved" and approved.authorization_token
    assert denied.decision == "denied" and denied.reason_code == "policy_denied"
    assert (await aclient.get_decision(approved.decision_id)).decision_id == approved.decision_id


async def test_held_then_approved_by_a_reviewer_while_authorize_waits(aclient: AsyncSpendAuth, world: World) -> None:
    request = world.request(amount=HOLD_ABOVE + 200)
    decision, approved = await asyncio.gather(
        aclient.authorize(request, wait=90),
        asyncio.to_thread(world.approve_when_pending, request["vendor"]),
    )
    assert decision.decision == "approved" and decision.decision_id == approved["decision_id"]
    assert decision.authorization_token


async def test_a_retry_after_a_dropped_answer_gets_the_same_decision(world: World) -> None:
    upstream = world.base_url.removesuffix("/v1")
    with DroppingProxy(upstream, ("POST", "/v1/authorize")) as proxy:
        async with AsyncSpendAuth(base_url=proxy.base_url, api_key=world.api_key) as c:
            d = await c.authorize(world.request())
    first, second = [s for s in proxy.seen if s.path == "/v1/authorize"]
    assert first.dropped and first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]
    assert d.decision_id == json.loads(first.body)["decision_id"]


async def test_a_400_raises_the_typed_error(aclient: AsyncSpendAuth, world: World) -> None:
    with pytest.raises(SpendAuthError) as caught:
        await aclient.authorize(world.request(currency="usd"))
    assert (caught.value.status, caught.value.code, caught.value.param) == (400, "invalid_request", "currency")
    assert caught.value.request_id


async def test_capture_void_and_verify_token(aclient: AsyncSpendAuth, world: World) -> None:
    d = await aclient.authorize(world.request())
    claims = await aclient.verify_token(d.authorization_token, account=world.account_id, livemode=True)
    assert claims["jti"] == d.decision_id and claims["aud"] == world.account_id
    with pytest.raises(TokenError) as caught:
        await aclient.verify_token(d.authorization_token, account=world.account_id, livemode=False)
    assert caught.value.code == "wrong_audience" and caught.value.param == "livemode"
    assert (await aclient.void(d.decision_id))["capture"]["status"] == "voided"
