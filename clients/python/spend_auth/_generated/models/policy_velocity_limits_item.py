from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PolicyVelocityLimitsItem")


@_attrs_define
class PolicyVelocityLimitsItem:
    """A rolling-window limit per agent; over it, authorize denies with `velocity_exceeded`

    Attributes:
        window_seconds (int): Rolling window, in seconds
        max_count (int | None | Unset): Most approved or pending decisions in the window
        max_amount (int | None | Unset): Most approved or pending minor units in the window
    """

    window_seconds: int
    max_count: int | None | Unset = UNSET
    max_amount: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        window_seconds = self.window_seconds

        max_count: int | None | Unset
        if isinstance(self.max_count, Unset):
            max_count = UNSET
        else:
            max_count = self.max_count

        max_amount: int | None | Unset
        if isinstance(self.max_amount, Unset):
            max_amount = UNSET
        else:
            max_amount = self.max_amount

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "window_seconds": window_seconds,
            }
        )
        if max_count is not UNSET:
            field_dict["max_count"] = max_count
        if max_amount is not UNSET:
            field_dict["max_amount"] = max_amount

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        window_seconds = d.pop("window_seconds")

        def _parse_max_count(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_count = _parse_max_count(d.pop("max_count", UNSET))

        def _parse_max_amount(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_amount = _parse_max_amount(d.pop("max_amount", UNSET))

        policy_velocity_limits_item = cls(
            window_seconds=window_seconds,
            max_count=max_count,
            max_amount=max_amount,
        )

        return policy_velocity_limits_item
