from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="DecisionEventDataMandateType0")


@_attrs_define
class DecisionEventDataMandateType0:
    """The AP2 mandate presentation that made a decision.

    Attributes:
        id (str): The mandate presented
        reference (str): base64url SHA-256 of the closed mandate's JWT: the receipt's `reference`
        transaction_id (str): The closed mandate's `transaction_id`
    """

    id: str
    reference: str
    transaction_id: str

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        reference = self.reference

        transaction_id = self.transaction_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "reference": reference,
                "transaction_id": transaction_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        reference = d.pop("reference")

        transaction_id = d.pop("transaction_id")

        decision_event_data_mandate_type_0 = cls(
            id=id,
            reference=reference,
            transaction_id=transaction_id,
        )

        return decision_event_data_mandate_type_0
