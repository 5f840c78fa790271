from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1MandatesBodyExecutionWindow")


@_attrs_define
class PostV1MandatesBodyExecutionWindow:
    """
    Attributes:
        not_before (datetime.datetime | Unset):
        not_after (datetime.datetime | Unset):
    """

    not_before: datetime.datetime | Unset = UNSET
    not_after: datetime.datetime | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        not_before: str | Unset = UNSET
        if not isinstance(self.not_before, Unset):
            not_before = self.not_before.isoformat()

        not_after: str | Unset = UNSET
        if not isinstance(self.not_after, Unset):
            not_after = self.not_after.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if not_before is not UNSET:
            field_dict["not_before"] = not_before
        if not_after is not UNSET:
            field_dict["not_after"] = not_after

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        _not_before = d.pop("not_before", UNSET)
        not_before: datetime.datetime | Unset
        if isinstance(_not_before, Unset):
            not_before = UNSET
        else:
            not_before = datetime.datetime.fromisoformat(_not_before)

        _not_after = d.pop("not_after", UNSET)
        not_after: datetime.datetime | Unset
        if isinstance(_not_after, Unset):
            not_after = UNSET
        else:
            not_after = datetime.datetime.fromisoformat(_not_after)

        post_v1_mandates_body_execution_window = cls(
            not_before=not_before,
            not_after=not_after,
        )

        return post_v1_mandates_body_execution_window
