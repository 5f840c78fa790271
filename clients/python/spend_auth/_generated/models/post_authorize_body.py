from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostAuthorizeBody")


@_attrs_define
class PostAuthorizeBody:
    """
    Attributes:
        token (str):
        amount (float | str): Decimal major units (USD): a JSON number or a numeric string, at most two decimal places,
            above 0 to 9999999999999.99
        merchant_name (str): A name or a domain/URL; must not contain control characters
        merchant_category (str | Unset):
    """

    token: str
    amount: float | str
    merchant_name: str
    merchant_category: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        amount: float | str
        amount = self.amount

        merchant_name = self.merchant_name

        merchant_category = self.merchant_category

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "token": token,
                "amount": amount,
                "merchant_name": merchant_name,
            }
        )
        if merchant_category is not UNSET:
            field_dict["merchant_category"] = merchant_category

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        token = d.pop("token")

        def _parse_amount(data: object) -> float | str:
            return cast(float | str, data)

        amount = _parse_amount(d.pop("amount"))

        merchant_name = d.pop("merchant_name")

        merchant_category = d.pop("merchant_category", UNSET)

        post_authorize_body = cls(
            token=token,
            amount=amount,
            merchant_name=merchant_name,
            merchant_category=merchant_category,
        )

        return post_authorize_body
