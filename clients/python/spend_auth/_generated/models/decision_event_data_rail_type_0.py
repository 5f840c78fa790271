from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.decision_event_data_rail_type_0_type import DecisionEventDataRailType0Type

T = TypeVar("T", bound="DecisionEventDataRailType0")


@_attrs_define
class DecisionEventDataRailType0:
    """The rail request a decision answered (docs/rails/stripe-issuing.md).

    Attributes:
        type_ (DecisionEventDataRailType0Type): The rail: `stripe_issuing` (a card authorization of Stripe Issuing)
        connection_id (str): The rail connection that asked
        authorization_id (str): The rail's own id of the request (Stripe Issuing: the authorization, `iauth_…`)
    """

    type_: DecisionEventDataRailType0Type
    connection_id: str
    authorization_id: str

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        connection_id = self.connection_id

        authorization_id = self.authorization_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "connection_id": connection_id,
                "authorization_id": authorization_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = DecisionEventDataRailType0Type(d.pop("type"))

        connection_id = d.pop("connection_id")

        authorization_id = d.pop("authorization_id")

        decision_event_data_rail_type_0 = cls(
            type_=type_,
            connection_id=connection_id,
            authorization_id=authorization_id,
        )

        return decision_event_data_rail_type_0
