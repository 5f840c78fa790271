from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="WebhookDeliveryAttemptsItem")


@_attrs_define
class WebhookDeliveryAttemptsItem:
    """One delivery attempt.

    Attributes:
        attempted_at (datetime.datetime): When the POST was sent
        duration_ms (int): Time to the answer or the failure
        status_code (int | None): The receiver's HTTP status; null when there was no answer
        error (None | str): Why the attempt failed; null on success
    """

    attempted_at: datetime.datetime
    duration_ms: int
    status_code: int | None
    error: None | str

    def to_dict(self) -> dict[str, Any]:
        attempted_at = self.attempted_at.isoformat()

        duration_ms = self.duration_ms

        status_code: int | None
        status_code = self.status_code

        error: None | str
        error = self.error

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "attempted_at": attempted_at,
                "duration_ms": duration_ms,
                "status_code": status_code,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempted_at = datetime.datetime.fromisoformat(d.pop("attempted_at"))

        duration_ms = d.pop("duration_ms")

        def _parse_status_code(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        status_code = _parse_status_code(d.pop("status_code"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        webhook_delivery_attempts_item = cls(
            attempted_at=attempted_at,
            duration_ms=duration_ms,
            status_code=status_code,
            error=error,
        )

        return webhook_delivery_attempts_item
