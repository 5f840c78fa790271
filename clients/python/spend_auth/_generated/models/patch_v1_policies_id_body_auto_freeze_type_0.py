from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PatchV1PoliciesIdBodyAutoFreezeType0")


@_attrs_define
class PatchV1PoliciesIdBodyAutoFreezeType0:
    """
    Attributes:
        denials (int):
        window_seconds (int):
    """

    denials: int
    window_seconds: int

    def to_dict(self) -> dict[str, Any]:
        denials = self.denials

        window_seconds = self.window_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "denials": denials,
                "window_seconds": window_seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        denials = d.pop("denials")

        window_seconds = d.pop("window_seconds")

        patch_v1_policies_id_body_auto_freeze_type_0 = cls(
            denials=denials,
            window_seconds=window_seconds,
        )

        return patch_v1_policies_id_body_auto_freeze_type_0
