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

from ..models.mandate_verification_error_type_0 import MandateVerificationErrorType0
from ..models.mandate_verification_status import MandateVerificationStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="MandateVerification")


@_attrs_define
class MandateVerification:
    """The outcome of an AP2 mandate presentation.

    Attributes:
        object_ (Literal['mandate_verification']):
        status (MandateVerificationStatus): AP2's receipt status
        error (MandateVerificationErrorType0 | None): AP2's error name; null on Success
        error_description (None | str): Why; for a failing constraint it starts with the constraint's type; null on
            Success
        reference (str): base64url SHA-256 of the closed mandate's JWT (the last `~~` part up to its first `~`)
        receipt (str): AP2 payment receipt: a compact JWS, `{alg: "ES256", typ: "payment-receipt+jwt", kid}`, verifiable
            with the JWKS
        mandate_id (None | str): The mandate presented; null when the credential was not ours
        decision_id (None | str): The decision recorded (steps 6–9); null when none was
        authorization_token (str | Unset): Only on Success: the `gca_` token of the approval
    """

    object_: Literal["mandate_verification"]
    status: MandateVerificationStatus
    error: MandateVerificationErrorType0 | None
    error_description: None | str
    reference: str
    receipt: str
    mandate_id: None | str
    decision_id: None | str
    authorization_token: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        status = self.status.value

        error: None | str
        if isinstance(self.error, MandateVerificationErrorType0):
            error = self.error.value
        else:
            error = self.error

        error_description: None | str
        error_description = self.error_description

        reference = self.reference

        receipt = self.receipt

        mandate_id: None | str
        mandate_id = self.mandate_id

        decision_id: None | str
        decision_id = self.decision_id

        authorization_token = self.authorization_token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "status": status,
                "error": error,
                "error_description": error_description,
                "reference": reference,
                "receipt": receipt,
                "mandate_id": mandate_id,
                "decision_id": decision_id,
            }
        )
        if authorization_token is not UNSET:
            field_dict["authorization_token"] = authorization_token

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        object_ = cast(Literal["mandate_verification"], d.pop("object"))
        if object_ != "mandate_verification":
            raise ValueError(
                f"object must match const 'mandate_verification', got '{object_}'"
            )

        status = MandateVerificationStatus(d.pop("status"))

        def _parse_error(data: object) -> MandateVerificationErrorType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                error_type_0 = MandateVerificationErrorType0(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MandateVerificationErrorType0 | None, data)

        error = _parse_error(d.pop("error"))

        def _parse_error_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error_description = _parse_error_description(d.pop("error_description"))

        reference = d.pop("reference")

        receipt = d.pop("receipt")

        def _parse_mandate_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        mandate_id = _parse_mandate_id(d.pop("mandate_id"))

        def _parse_decision_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        decision_id = _parse_decision_id(d.pop("decision_id"))

        authorization_token = d.pop("authorization_token", UNSET)

        mandate_verification = cls(
            object_=object_,
            status=status,
            error=error,
            error_description=error_description,
            reference=reference,
            receipt=receipt,
            mandate_id=mandate_id,
            decision_id=decision_id,
            authorization_token=authorization_token,
        )

        return mandate_verification
