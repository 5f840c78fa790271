from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1MandatesBodyPaymentInstrumentsItem")


@_attrs_define
class PostV1MandatesBodyPaymentInstrumentsItem:
    """
    Attributes:
        id (str):
        type_ (str):
        description (str | Unset):
    """

    id: str
    type_: str
    description: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_

        description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "type": type_,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        description = d.pop("description", UNSET)

        post_v1_mandates_body_payment_instruments_item = cls(
            id=id,
            type_=type_,
            description=description,
        )

        return post_v1_mandates_body_payment_instruments_item
