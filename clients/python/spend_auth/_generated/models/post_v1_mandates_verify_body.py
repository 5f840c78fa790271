from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1MandatesVerifyBody")


@_attrs_define
class PostV1MandatesVerifyBody:
    """
    Attributes:
        presentation (str): AP2 wire format: `<open credential>~~<closed mandate>~`
        open_checkout_hash (str | Unset): The checkout this payment is for: must equal the mandate's `payment.reference`
        checkout_jwt_hash (str | Unset): When given, the closed mandate's `transaction_id` must equal it
        nonce (str | Unset): When given, the closed part's `nonce` must equal it
    """

    presentation: str
    open_checkout_hash: str | Unset = UNSET
    checkout_jwt_hash: str | Unset = UNSET
    nonce: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        presentation = self.presentation

        open_checkout_hash = self.open_checkout_hash

        checkout_jwt_hash = self.checkout_jwt_hash

        nonce = self.nonce

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "presentation": presentation,
            }
        )
        if open_checkout_hash is not UNSET:
            field_dict["open_checkout_hash"] = open_checkout_hash
        if checkout_jwt_hash is not UNSET:
            field_dict["checkout_jwt_hash"] = checkout_jwt_hash
        if nonce is not UNSET:
            field_dict["nonce"] = nonce

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        presentation = d.pop("presentation")

        open_checkout_hash = d.pop("open_checkout_hash", UNSET)

        checkout_jwt_hash = d.pop("checkout_jwt_hash", UNSET)

        nonce = d.pop("nonce", UNSET)

        post_v1_mandates_verify_body = cls(
            presentation=presentation,
            open_checkout_hash=open_checkout_hash,
            checkout_jwt_hash=checkout_jwt_hash,
            nonce=nonce,
        )

        return post_v1_mandates_verify_body
