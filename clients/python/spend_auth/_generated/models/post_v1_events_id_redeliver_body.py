from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1EventsIdRedeliverBody")


@_attrs_define
class PostV1EventsIdRedeliverBody:
    """
    Attributes:
        endpoint_id (str | Unset):
    """

    endpoint_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        endpoint_id = self.endpoint_id

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if endpoint_id is not UNSET:
            field_dict["endpoint_id"] = endpoint_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        endpoint_id = d.pop("endpoint_id", UNSET)

        post_v1_events_id_redeliver_body = cls(
            endpoint_id=endpoint_id,
        )

        return post_v1_events_id_redeliver_body
