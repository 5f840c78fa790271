from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.policy_simulation_results_item_request_metadata import (
        PolicySimulationResultsItemRequestMetadata,
    )


T = TypeVar("T", bound="PolicySimulationResultsItemRequest")


@_attrs_define
class PolicySimulationResultsItemRequest:
    """The request simulated

    Attributes:
        agent_id (str): The agent
        amount (int): Minor units
        currency (str): ISO 4217 code, upper case
        vendor (str):
        category (None | str):
        metadata (PolicySimulationResultsItemRequestMetadata): Key-value pairs set by the caller
    """

    agent_id: str
    amount: int
    currency: str
    vendor: str
    category: None | str
    metadata: PolicySimulationResultsItemRequestMetadata

    def to_dict(self) -> dict[str, Any]:
        agent_id = self.agent_id

        amount = self.amount

        currency = self.currency

        vendor = self.vendor

        category: None | str
        category = self.category

        metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_id": agent_id,
                "amount": amount,
                "currency": currency,
                "vendor": vendor,
                "category": category,
                "metadata": metadata,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_simulation_results_item_request_metadata import (
            PolicySimulationResultsItemRequestMetadata,
        )

        d = dict(src_dict)
        agent_id = d.pop("agent_id")

        amount = d.pop("amount")

        currency = d.pop("currency")

        vendor = d.pop("vendor")

        def _parse_category(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        category = _parse_category(d.pop("category"))

        metadata = PolicySimulationResultsItemRequestMetadata.from_dict(
            d.pop("metadata")
        )

        policy_simulation_results_item_request = cls(
            agent_id=agent_id,
            amount=amount,
            currency=currency,
            vendor=vendor,
            category=category,
            metadata=metadata,
        )

        return policy_simulation_results_item_request
