"""What needs no service: retry timing (Retry-After in both forms, the backoff's bounds, what is
retried) and the generated module (every one of its modules imports)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import httpx

from spend_auth import _http


def test_retry_after_seconds_and_http_date() -> None:
    now = datetime(2026, 11, 28, 12, 0, 0, tzinfo=timezone.utc)
    assert _http.parse_retry_after("7") == 7.0
    assert _http.parse_retry_after(" 0 ") == 0.0
    assert _http.parse_retry_after(format_datetime(now + timedelta(seconds=12), usegmt=True), now=now) == 12.0
    assert _http.parse_retry_after(format_datetime(now - timedelta(seconds=12), usegmt=True), now=now) == 0.0
    assert _http.parse_retry_after(None) is None
    assert _http.parse_retry_after("soon") is None
    assert _http.parse_retry_after("nan") is None


def test_backoff_is_full_jitter_capped_at_8_s_and_retry_after_wins_with_a_spread() -> None:
    for attempt, ceiling in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (10, 8.0)]:
        delays = [_http.retry_delay(attempt, None) for _ in range(200)]
        assert all(0 <= d <= ceiling for d in delays) and max(delays) > ceiling / 2
    waits = [_http.retry_delay(5, 3.0) for _ in range(200)]
    assert all(3.0 <= w <= 4.5 for w in waits) and len(set(waits)) > 100
    assert _http.retry_delay(0, 0.0) == 0.0


def test_base_url_gets_v1() -> None:
    assert _http.resolve_settings("http://h:3000", "k")[0] == "http://h:3000/v1"
    assert _http.resolve_settings("http://h:3000/v1/", "k")[0] == "http://h:3000/v1"


def test_what_is_retried() -> None:
    req = httpx.Request("POST", "http://127.0.0.1/v1/authorize")
    answer = lambda status, **h: httpx.Response(status, headers=h, request=req)  # noqa: E731
    assert _http.should_retry(answer(429, **{"Retry-After": "3"})) == (True, 3.0)
    assert _http.should_retry(answer(503)) == (True, None)
    assert _http.should_retry(answer(500)) == (False, None)
    assert _http.should_retry(answer(400)) == (False, None)
    # More than a minute is not slept through: raised, with the wait it asked for.
    assert _http.should_retry(answer(429, **{"Retry-After": "3600"})) == (False, 3600.0)


def test_every_generated_module_imports() -> None:
    """A model the generator skipped leaves an import of a module that is not there."""
    import importlib
    import pkgutil

    import spend_auth._generated as generated

    names = [m.name for m in pkgutil.walk_packages(generated.__path__, generated.__name__ + ".")]
    assert len(names) > 300
    for name in names:
        importlib.import_module(name)
