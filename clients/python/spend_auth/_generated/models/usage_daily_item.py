from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UsageDailyItem")


@_attrs_define
class UsageDailyItem:
    """One UTC day's billable checks.

    Attributes:
        date (datetime.date): A UTC day (YYYY-MM-DD)
        checks (int): Billable checks that day
    """

    date: datetime.date
    checks: int

    def to_dict(self) -> dict[str, Any]:
        date = self.date.isoformat()

        checks = self.checks

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "date": date,
                "checks": checks,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        date = datetime.date.fromisoformat(d.pop("date"))

        checks = d.pop("checks")

        usage_daily_item = cls(
            date=date,
            checks=checks,
        )

        return usage_daily_item
