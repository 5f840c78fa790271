"""Retry timing: Retry-After in both forms, and the backoff's bounds (pure functions, no service)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

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


def test_backoff_is_full_jitter_capped_at_8_s_and_retry_after_wins() -> None:
    for attempt, ceiling in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (10, 8.0)]:
        delays = [_http.retry_delay(attempt, None) for _ in range(200)]
        assert all(0 <= d <= ceiling for d in delays) and max(delays) > ceiling / 2
    assert _http.retry_delay(5, 3.0) == 3.0


def test_base_url_gets_v1() -> None:
    assert _http.resolve_settings("http://h:3000", "k")[0] == "http://h:3000/v1"
    assert _http.resolve_settings("http://h:3000/v1/", "k")[0] == "http://h:3000/v1"
