from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.approval_rail_type_0_type import ApprovalRailType0Type

T = TypeVar("T", bound="ApprovalRailType0")


@_attrs_define
class ApprovalRailType0:
    """The rail request a decision answered (docs/rails/stripe-issuing.md).

    Attributes:
        type_ (ApprovalRailType0Type): The rail: `stripe_issuing` (a card authorization of Stripe Issuing)
        connection_id (str): The rail connection that asked
        authorization_id (str): The rail's own id of the request (Stripe Issuing: the authorization, `iauth_…`)
    """

    type_: ApprovalRailType0Type
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
        type_ = ApprovalRailType0Type(d.pop("type"))

        connection_id = d.pop("connection_id")

        authorization_id = d.pop("authorization_id")

        approval_rail_type_0 = cls(
            type_=type_,
            connection_id=connection_id,
            authorization_id=authorization_id,
        )

        return approval_rail_type_0
