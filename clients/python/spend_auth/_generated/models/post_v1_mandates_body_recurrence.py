from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_mandates_body_recurrence_frequency import (
    PostV1MandatesBodyRecurrenceFrequency,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1MandatesBodyRecurrence")


@_attrs_define
class PostV1MandatesBodyRecurrence:
    """Needs `budget`. Without it the mandate is single-use

    Attributes:
        frequency (PostV1MandatesBodyRecurrenceFrequency):
        max_occurrences (int | Unset):
    """

    frequency: PostV1MandatesBodyRecurrenceFrequency
    max_occurrences: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        frequency = self.frequency.value

        max_occurrences = self.max_occurrences

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "frequency": frequency,
            }
        )
        if max_occurrences is not UNSET:
            field_dict["max_occurrences"] = max_occurrences

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        frequency = PostV1MandatesBodyRecurrenceFrequency(d.pop("frequency"))

        max_occurrences = d.pop("max_occurrences", UNSET)

        post_v1_mandates_body_recurrence = cls(
            frequency=frequency,
            max_occurrences=max_occurrences,
        )

        return post_v1_mandates_body_recurrence
