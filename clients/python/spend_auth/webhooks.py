"""Verifying a webhook delivery (SPEC §6, DECISIONS §9, docs/api.md "Verifying a delivery").

The header ``X-Service-Signature: sha256=<hex>`` is HMAC-SHA256 of the raw body, as sent, keyed with
the endpoint's secret (``whsec_…``); during a secret rotation's grace period the header
``X-Service-Signature-Previous`` signs the same body with the previous secret. The body's
``timestamp`` (the event's time, covered by the signature) bounds how old a delivery may be.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from dateutil.parser import isoparse

from .errors import SpendAuthError, WebhookVerificationError

SIGNATURE_HEADER = "X-Service-Signature"
PREVIOUS_SIGNATURE_HEADER = "X-Service-Signature-Previous"
#: A delivery's body is the same bytes on every attempt and the service retries a failed one for up
#: to 3 days (an hour added for the outbox and clocks): a tighter default would refuse the service's
#: own retries. Dedupe on the event ``id``.
DEFAULT_TOLERANCE = 3 * 86_400.0 + 3_600.0


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)  # httpx.Headers, werkzeug's and starlette's: case-insensitive
    if value is not None:
        return str(value)
    lowered = name.lower()
    for key, candidate in headers.items():
        if key.lower() == lowered:
            return candidate
    return None


def verify_webhook(
    payload: bytes | str,
    signature: str | Mapping[str, str] | None,
    secret: str | Iterable[str],
    *,
    tolerance: float | None = DEFAULT_TOLERANCE,
    now: float | None = None,
    seen: Callable[[str], bool] | None = None,
) -> dict[str, Any]:
    """Checks a delivery and returns its event (``{id, event, data, timestamp, signature}``).

    ``payload``: the raw request body (bytes, or the exact text): never re-serialized JSON.
    ``signature``: the X-Service-Signature header's value, or the request's headers (then
    X-Service-Signature-Previous is accepted too). ``secret``: the endpoint's secret, or several
    (the current and the previous one during a rotation). ``tolerance``: the most seconds the event's
    ``timestamp`` may be from now, either way (None: not checked); the default (3 days and an hour)
    admits every retry of the service, since a retried delivery keeps its event's first timestamp.
    Dedupe on the event ``id`` in any case: ``seen``, a replay guard, is told each verified event's
    id and answers whether it was seen before (remembering it); a delivery seen before then raises
    ``replayed``. ``SeenEventIds()`` is one, in memory, for one process. Raises WebhookVerificationError; a ``tolerance`` that is
    not a number of seconds, 0 or more (NaN, negative), raises SpendAuthError ``invalid_request``
    (``param`` ``tolerance``) before anything is checked.
    """
    if tolerance is not None and (
        isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or math.isnan(tolerance) or tolerance < 0
    ):
        raise SpendAuthError("tolerance must be a number of seconds, 0 or more (None: the signature only).", code="invalid_request", param="tolerance")
    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    if isinstance(signature, Mapping):
        candidates = [v for v in (_header(signature, SIGNATURE_HEADER), _header(signature, PREVIOUS_SIGNATURE_HEADER)) if v]
    else:
        candidates = [signature] if signature else []
    if not candidates:
        raise WebhookVerificationError(f"No {SIGNATURE_HEADER} header", code="signature_invalid", param=SIGNATURE_HEADER)
    secrets = [secret] if isinstance(secret, str) else list(secret)
    expected = [hmac.new(s.encode("utf-8"), body, hashlib.sha256).hexdigest().encode("ascii") for s in secrets if s]
    if not expected:
        raise ValueError("a webhook secret is required")
    ok = False
    for candidate in candidates:
        value = candidate.strip()
        if not value.startswith("sha256="):
            continue
        received = value[len("sha256=") :].encode("utf-8", "replace")
        for digest in expected:
            # compare_digest is constant-time for equal lengths and False for unequal ones.
            ok |= hmac.compare_digest(received, digest)
    if not ok:
        raise WebhookVerificationError("The webhook signature does not match the body", code="signature_invalid", param=SIGNATURE_HEADER)
    try:
        event = json.loads(body)
    except ValueError as exc:
        raise WebhookVerificationError("The webhook body is not JSON", code="malformed") from exc
    if not isinstance(event, dict) or not all(isinstance(event.get(k), str) for k in ("id", "event", "timestamp")):
        raise WebhookVerificationError("The signed body is not an event ({id, event, data, timestamp})", code="malformed")
    try:
        sent = isoparse(event["timestamp"]).timestamp()
    except (TypeError, ValueError, OverflowError) as exc:
        raise WebhookVerificationError("The event's timestamp is not a date", code="malformed", param="timestamp") from exc
    if tolerance is not None:
        age = (time.time() if now is None else now) - sent
        if abs(age) > tolerance:
            raise WebhookVerificationError(
                f"The webhook's timestamp is {abs(age):.0f} s {'old' if age > 0 else 'ahead'}, beyond the {tolerance:.0f} s tolerance",
                code="timestamp_out_of_tolerance",
                param="timestamp",
            )
    # Last: only a delivery that is genuine and in time is remembered.
    if seen is not None and seen(event["id"]):
        raise WebhookVerificationError(f"Event {event['id']} was delivered before: a replay (or a retry already handled)", code="replayed", param="id")
    return event


class SeenEventIds:
    """An in-memory replay guard for ``verify_webhook(..., seen=...)``: event ids are kept for
    ``keep_seconds`` (the tolerance, by default), at most ``max_ids`` (the oldest go first). One
    process only; several processes share a store (an insert into a unique column) instead."""

    def __init__(self, keep_seconds: float = DEFAULT_TOLERANCE, max_ids: int = 100_000, clock: Callable[[], float] = time.monotonic) -> None:
        self._keep = keep_seconds
        self._max = max_ids
        self._clock = clock
        self._ids: dict[str, float] = {}

    def __call__(self, event_id: str) -> bool:
        now = self._clock()
        for old, at in list(self._ids.items()):
            if now - at <= self._keep and len(self._ids) < self._max:
                break
            del self._ids[old]
        if event_id in self._ids:
            return True
        self._ids[event_id] = now
        return False
