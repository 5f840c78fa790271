"""Session fixtures: the real service (tests/service.py), the objects every test uses, and the
clients under test."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from spend_auth import AsyncSpendAuth, SpendAuth

from .service import Service, start_service

HOLD_ABOVE = 5_000
START_APPROVAL_TIMEOUT = 180.0


@dataclass
class World:
    """What the tests authorize against, in live mode of the main account."""

    service: Service
    admin: httpx.Client  # the account's first live admin key (from the CLI), for setting things up
    api_key: str  # the clients' key: a live admin key minted by that one
    reviewer_key: str  # a reviewer key minted beside it (not from it: four eyes, DECISIONS §8)
    policy_id: str
    agent_id: str

    @property
    def base_url(self) -> str:
        return self.service.base_url

    @property
    def account_id(self) -> str:
        return self.service.main.id

    def request(self, **overrides: Any) -> dict[str, Any]:
        """An authorize body that is approved unless overridden (vendor unique per call)."""
        return {"agent_id": self.agent_id, "amount": 1_250, "currency": "USD", "vendor": f"{uuid.uuid4().hex[:10]}.example.com",
                "category": "saas", **overrides}

    def approve_when_pending(self, vendor: str, timeout: float = 60) -> dict[str, Any]:
        """As a reviewer would: finds the pending approval of that vendor and approves it."""
        headers = {"Authorization": f"Bearer {self.reviewer_key}"}
        deadline = time.monotonic() + timeout
        last = "nothing pending"
        with httpx.Client(base_url=self.base_url, headers=headers, timeout=30) as reviewer:
            while time.monotonic() < deadline:
                pending = reviewer.get("/approvals", params={"status": "pending", "limit": 100}).raise_for_status().json()["data"]
                mine = [a for a in pending if a.get("vendor") == vendor]
                if mine:
                    decision_id = mine[0].get("decision_id") or mine[0]["id"]
                    res = reviewer.post(f"/approvals/{decision_id}/approve", json={"note": "ok by the tests"})
                    if res.status_code != 503:  # 503: the engine did not record it in time; the hold stays pending
                        assert res.status_code == 200, res.text
                        return res.json()
                    last = f"{res.status_code} {res.text}"
                time.sleep(0.2)
        raise AssertionError(f"no approval of {vendor} within {timeout} s; last: {last}")


@pytest.fixture(scope="session")
def service(request: pytest.FixtureRequest) -> Iterator[Service]:
    svc = start_service()
    line = (f"started `spend-auth dev` (embedded PGlite in {svc.data_dir}, its own Temporal dev server) "
            f"on {svc.base_url} in {svc.started_in:.1f} s, accounts {svc.main.id} and {svc.limited.id} (rate limit 2/min)")
    # Outside pytest's capture: one line on the terminal (and in CI's log) saying what runs.
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        print(f"\n{line}", flush=True)
    yield svc
    svc.stop()


@pytest.fixture(scope="session")
def world(service: Service) -> Iterator[World]:
    admin = httpx.Client(base_url=service.base_url, headers={"Authorization": f"Bearer {service.main.live_key}"}, timeout=30)
    policy = admin.post("/policies", json={
        "name": "python client tests", "budget_monthly": 100_000_000, "budget_single_max": 1_000_000,
        "require_approval_above": HOLD_ABOVE, "vendor_denylist": ["blocked.example"],
    }).raise_for_status().json()
    agent = admin.post("/agents", json={"name": "python client agent", "policy_id": policy["id"]}).raise_for_status().json()
    requester = admin.post("/api-keys", json={"name": "python client", "mode": "live", "role": "admin"}).raise_for_status().json()
    reviewer = admin.post("/api-keys", json={"name": "python reviewer", "mode": "live", "role": "reviewer"}).raise_for_status().json()
    world = World(service, admin, requester["key"], reviewer["key"], policy["id"], agent["id"])
    # The first approval of a fresh workflow engine can take long on a busy machine (the worker's
    # first workflow task): made here once, so that the tests' waits measure the client, not that.
    with SpendAuth(base_url=world.base_url, api_key=world.api_key) as c:
        warm = c.authorize(world.request(amount=HOLD_ABOVE + 1))
        assert warm.held, warm
        world.approve_when_pending(warm["vendor"], timeout=START_APPROVAL_TIMEOUT)
    yield world
    admin.close()


@pytest.fixture
def client(world: World) -> Iterator[SpendAuth]:
    with SpendAuth(base_url=world.base_url, api_key=world.api_key) as c:
        yield c


@pytest.fixture
async def aclient(world: World) -> AsyncIterator[AsyncSpendAuth]:
    async with AsyncSpendAuth(base_url=world.base_url, api_key=world.api_key) as c:
        yield c
