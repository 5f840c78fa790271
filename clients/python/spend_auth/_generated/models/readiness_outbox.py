from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ReadinessOutbox")


@_attrs_define
class ReadinessOutbox:
    """Absent when the database is down

    Attributes:
        pending (int): Events and workflow starts not yet relayed
        oldest_age_seconds (int): Age of the oldest of them
    """

    pending: int
    oldest_age_seconds: int

    def to_dict(self) -> dict[str, Any]:
        pending = self.pending

        oldest_age_seconds = self.oldest_age_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "pending": pending,
                "oldest_age_seconds": oldest_age_seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        pending = d.pop("pending")

        oldest_age_seconds = d.pop("oldest_age_seconds")

        readiness_outbox = cls(
            pending=pending,
            oldest_age_seconds=oldest_age_seconds,
        )

        return readiness_outbox
