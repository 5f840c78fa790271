from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_policies_simulate_body_requests_item_metadata import (
        PostV1PoliciesSimulateBodyRequestsItemMetadata,
    )


T = TypeVar("T", bound="PostV1PoliciesSimulateBodyRequestsItem")


@_attrs_define
class PostV1PoliciesSimulateBodyRequestsItem:
    """
    Attributes:
        agent_id (str):
        amount (int):
        currency (str):
        vendor (str): A name or a domain/URL; must not contain control characters
        category (str | Unset):
        metadata (PostV1PoliciesSimulateBodyRequestsItemMetadata | Unset):
    """

    agent_id: str
    amount: int
    currency: str
    vendor: str
    category: str | Unset = UNSET
    metadata: PostV1PoliciesSimulateBodyRequestsItemMetadata | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        amount = self.amount

        currency = self.currency

        vendor = self.vendor

        category = self.category

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
                "amount": amount,
                "currency": currency,
                "vendor": vendor,
            }
        )
        if category is not UNSET:
            field_dict["category"] = category
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_policies_simulate_body_requests_item_metadata import (
            PostV1PoliciesSimulateBodyRequestsItemMetadata,
        )

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        amount = d.pop("amount")

        currency = d.pop("currency")

        vendor = d.pop("vendor")

        category = d.pop("category", UNSET)

        _metadata = d.pop("metadata", UNSET)
        metadata: PostV1PoliciesSimulateBodyRequestsItemMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = PostV1PoliciesSimulateBodyRequestsItemMetadata.from_dict(
                _metadata
            )

        post_v1_policies_simulate_body_requests_item = cls(
            agent_id=agent_id,
            amount=amount,
            currency=currency,
            vendor=vendor,
            category=category,
            metadata=metadata,
        )

        return post_v1_policies_simulate_body_requests_item
