from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

T = TypeVar("T", bound="AuthorizationAdjustedWebhookDataType1Rail")


@_attrs_define
class AuthorizationAdjustedWebhookDataType1Rail:
    """Where the card moved the money

    Attributes:
        type_ (Literal['stripe_issuing']):
        connection_id (str): The rail connection that reported it
        authorization_id (None | str): The rail's authorization (`iauth_…`); null for a force post
        transaction_id (None | str): The force-posted transaction (`ipi_…`); null when an authorization is named
    """

    type_: Literal["stripe_issuing"]
    connection_id: str
    authorization_id: None | str
    transaction_id: None | str

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        connection_id = self.connection_id

        authorization_id: None | str
        authorization_id = self.authorization_id

        transaction_id: None | str
        transaction_id = self.transaction_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "connection_id": connection_id,
                "authorization_id": authorization_id,
                "transaction_id": transaction_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = cast(Literal["stripe_issuing"], d.pop("type"))
        if type_ != "stripe_issuing":
            raise ValueError(f"type must match const 'stripe_issuing', got '{type_}'")

        connection_id = d.pop("connection_id")

        def _parse_authorization_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        authorization_id = _parse_authorization_id(d.pop("authorization_id"))

        def _parse_transaction_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        transaction_id = _parse_transaction_id(d.pop("transaction_id"))

        authorization_adjusted_webhook_data_type_1_rail = cls(
            type_=type_,
            connection_id=connection_id,
            authorization_id=authorization_id,
            transaction_id=transaction_id,
        )

        return authorization_adjusted_webhook_data_type_1_rail
