"""Webhook verification on deliveries the service itself signed and sent to a receiver on 127.0.0.1."""

from __future__ import annotations

import hashlib
import hmac
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from dateutil.parser import isoparse

from spend_auth import SpendAuth, WebhookVerificationError, verify_webhook

from .conftest import World


@dataclass
class Delivery:
    body: bytes
    headers: dict[str, str]


@pytest.fixture(scope="module")
def delivery(world: World) -> Iterator[tuple[Delivery, str]]:
    """One `authorize.approved` delivery, as received, and the endpoint's secret. Test mode: a live
    endpoint must be https."""
    got: queue.Queue[Delivery] = queue.Queue()

    class Receiver(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            got.put(Delivery(body, dict(self.headers.items())))
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    test_key = world.service.main.test_key
    with httpx.Client(base_url=world.base_url, headers={"Authorization": f"Bearer {test_key}"}, timeout=30) as admin:
        endpoint = admin.post("/webhook-endpoints", json={"url": f"http://127.0.0.1:{server.server_address[1]}/hook",
                                                         "events": ["authorize.approved"]}).raise_for_status().json()
        policy = admin.post("/policies", json={"name": "webhooks", "budget_monthly": 1_000_000, "budget_single_max": 100_000}).raise_for_status().json()
        agent = admin.post("/agents", json={"name": "webhook agent", "policy_id": policy["id"]}).raise_for_status().json()
    with SpendAuth(base_url=world.base_url, api_key=test_key) as c:
        assert c.authorize({"agent_id": agent["id"], "amount": 321, "currency": "USD", "vendor": "hooks.example.com"}).approved
    try:
        yield got.get(timeout=60), endpoint["secret"]
    finally:
        server.shutdown()
        server.server_close()


def test_a_delivery_verifies_with_its_headers_or_its_signature_header(delivery: tuple[Delivery, str]) -> None:
    d, secret = delivery
    event = verify_webhook(d.body, d.headers, secret)
    assert event["event"] == "authorize.approved" and event["id"].startswith("evt_")
    assert event["data"]["amount"] == 321 and "authorization_token" not in event["data"]
    assert verify_webhook(d.body.decode(), d.headers["X-Service-Signature"], secret) == event
    # During a rotation: the previous secret too.
    assert verify_webhook(d.body, d.headers, ["whsec_new_one", secret]) == event


def test_a_tampered_body_or_another_secret_is_refused(delivery: tuple[Delivery, str]) -> None:
    d, secret = delivery
    tampered = d.body.replace(b'"amount":321', b'"amount":999')
    assert tampered != d.body
    for body, key in ((tampered, secret), (d.body, secret + "x")):
        with pytest.raises(WebhookVerificationError) as caught:
            verify_webhook(body, d.headers, key)
        assert caught.value.code == "signature_invalid"
    with pytest.raises(WebhookVerificationError) as caught:
        verify_webhook(d.body, {"Content-Type": "application/json"}, secret)
    assert caught.value.code == "signature_invalid"


def test_a_stale_delivery_is_refused_unless_the_tolerance_allows_it(delivery: tuple[Delivery, str]) -> None:
    d, secret = delivery
    sent = isoparse(verify_webhook(d.body, d.headers, secret)["timestamp"]).timestamp()
    day = 86_400
    # The default admits every retry of the service (3 days), and not a body 4 days old.
    assert verify_webhook(d.body, d.headers, secret, now=sent + 3 * day)["id"]
    with pytest.raises(WebhookVerificationError) as caught:
        verify_webhook(d.body, d.headers, secret, now=sent + 4 * day)
    assert caught.value.code == "timestamp_out_of_tolerance" and caught.value.param == "timestamp"
    with pytest.raises(WebhookVerificationError) as caught:
        verify_webhook(d.body, d.headers, secret, now=sent + 301, tolerance=300)
    assert caught.value.code == "timestamp_out_of_tolerance"
    with pytest.raises(WebhookVerificationError):
        verify_webhook(d.body, d.headers, secret, now=sent - 301, tolerance=300)  # from the future
    assert verify_webhook(d.body, d.headers, secret, now=sent + 3600, tolerance=None)["id"]
    assert verify_webhook(d.body, d.headers, secret, now=sent + 3600, tolerance=7200)["id"]
    assert time.time() - sent < 300


def test_the_scheme_is_hmac_sha256_of_the_raw_body(delivery: tuple[Delivery, str]) -> None:
    d, secret = delivery
    assert d.headers["X-Service-Signature"] == "sha256=" + hmac.new(secret.encode(), d.body, hashlib.sha256).hexdigest()


def test_a_genuine_delivery_replayed_within_the_tolerance_is_refused_by_the_replay_guard(delivery: tuple[Delivery, str]) -> None:
    """The tolerance (3 days and an hour) admits the service's own retries, so it admits a replay too:
    the replay guard is what refuses the second one."""
    from spend_auth import SeenEventIds

    d, secret = delivery
    assert verify_webhook(d.body, d.headers, secret)["id"]  # no guard: a replay verifies again
    assert verify_webhook(d.body, d.headers, secret)["id"]
    clock = [1_000.0]
    seen = SeenEventIds(keep_seconds=60, clock=lambda: clock[0])
    event = verify_webhook(d.body, d.headers, secret, seen=seen)
    with pytest.raises(WebhookVerificationError) as caught:
        verify_webhook(d.body, d.headers, secret, seen=seen)
    assert (caught.value.code, caught.value.param) == ("replayed", "id")
    # A forgery is refused for its signature and never takes the id's place.
    fresh = SeenEventIds()
    with pytest.raises(WebhookVerificationError) as forged:
        verify_webhook(d.body + b" ", d.headers, secret, seen=fresh)
    assert forged.value.code == "signature_invalid"
    assert verify_webhook(d.body, d.headers, secret, seen=fresh)["id"] == event["id"]
    # Past keep_seconds the id is forgotten (keep it at least as long as the tolerance).
    clock[0] += 61
    assert verify_webhook(d.body, d.headers, secret, seen=seen)["id"] == event["id"]
