from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1MandatesBodyPayeesItem")


@_attrs_define
class PostV1MandatesBodyPayeesItem:
    """
    Attributes:
        id (str): What the closed mandate's `payee.id` must equal
        name (str):
        website (str | Unset): The payee's site: its host is the vendor the policy's lists are checked against (else
            `name`)
    """

    id: str
    name: str
    website: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        website = self.website

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "name": name,
            }
        )
        if website is not UNSET:
            field_dict["website"] = website

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        website = d.pop("website", UNSET)

        post_v1_mandates_body_payees_item = cls(
            id=id,
            name=name,
            website=website,
        )

        return post_v1_mandates_body_payees_item
