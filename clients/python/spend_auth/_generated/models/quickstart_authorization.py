from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.quickstart_authorization_reason_code_type_0 import (
    QuickstartAuthorizationReasonCodeType0,
)
from ..models.quickstart_authorization_status import QuickstartAuthorizationStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="QuickstartAuthorization")


@_attrs_define
class QuickstartAuthorization:
    """The quick-start answer to a spend request, in decimal USD.

    Attributes:
        authorized (bool): True only when approved: the caller may charge
        status (QuickstartAuthorizationStatus): `pending`: held for a reviewer; poll GET /v1/decisions/{transaction_id}
        transaction_id (str): The decision id (usable on /v1)
        remaining_balance (float): USD left today for this agent
        currency (str): ISO 4217 code, upper case
        reason_code (None | QuickstartAuthorizationReasonCodeType0): Why it was denied or held; null when approved
        message (str): What happened and what the agent can do next
        authorization_token (str | Unset): Only when approved: the signed `gca_` token
    """

    authorized: bool
    status: QuickstartAuthorizationStatus
    transaction_id: str
    remaining_balance: float
    currency: str
    reason_code: None | QuickstartAuthorizationReasonCodeType0
    message: str
    authorization_token: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        authorized = self.authorized

        status = self.status.value

        transaction_id = self.transaction_id

        remaining_balance = self.remaining_balance

        currency = self.currency

        reason_code: None | str
        if isinstance(self.reason_code, QuickstartAuthorizationReasonCodeType0):
            reason_code = self.reason_code.value
        else:
            reason_code = self.reason_code

        message = self.message

        authorization_token = self.authorization_token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "authorized": authorized,
                "status": status,
                "transaction_id": transaction_id,
                "remaining_balance": remaining_balance,
                "currency": currency,
                "reason_code": reason_code,
                "message": message,
            }
        )
        if authorization_token is not UNSET:
            field_dict["authorization_token"] = authorization_token

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        authorized = d.pop("authorized")

        status = QuickstartAuthorizationStatus(d.pop("status"))

        transaction_id = d.pop("transaction_id")

        remaining_balance = d.pop("remaining_balance")

        currency = d.pop("currency")

        def _parse_reason_code(
            data: object,
        ) -> None | QuickstartAuthorizationReasonCodeType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_code_type_0 = QuickstartAuthorizationReasonCodeType0(data)

                return reason_code_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | QuickstartAuthorizationReasonCodeType0, data)

        reason_code = _parse_reason_code(d.pop("reason_code"))

        message = d.pop("message")

        authorization_token = d.pop("authorization_token", UNSET)

        quickstart_authorization = cls(
            authorized=authorized,
            status=status,
            transaction_id=transaction_id,
            remaining_balance=remaining_balance,
            currency=currency,
            reason_code=reason_code,
            message=message,
            authorization_token=authorization_token,
        )

        return quickstart_authorization
