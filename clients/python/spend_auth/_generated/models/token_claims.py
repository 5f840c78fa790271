from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="TokenClaims")


@_attrs_define
class TokenClaims:
    """The claims of a `gca_` authorization token.

    Attributes:
        iss (str): Issuer: this service
        aud (str): The account id (`acct_…`): a rail serving one account rejects the others
        sub (str): The agent
        jti (str): The decision
        amount (int): Approved amount in minor units
        currency (str): ISO 4217 code, upper case
        vendor (str): The vendor as sent
        category (None | str):
        policy (None | str):
        livemode (bool): Live-mode approval
        iat (int): Issued at (seconds since the epoch)
        exp (int): Expires at (seconds since the epoch)
    """

    iss: str
    aud: str
    sub: str
    jti: str
    amount: int
    currency: str
    vendor: str
    category: None | str
    policy: None | str
    livemode: bool
    iat: int
    exp: int

    def to_dict(self) -> dict[str, Any]:
        iss = self.iss

        aud = self.aud

        sub = self.sub

        jti = self.jti

        amount = self.amount

        currency = self.currency

        vendor = self.vendor

        category: None | str
        category = self.category

        policy: None | str
        policy = self.policy

        livemode = self.livemode

        iat = self.iat

        exp = self.exp

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "iss": iss,
                "aud": aud,
                "sub": sub,
                "jti": jti,
                "amount": amount,
                "currency": currency,
                "vendor": vendor,
                "category": category,
                "policy": policy,
                "livemode": livemode,
                "iat": iat,
                "exp": exp,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        iss = d.pop("iss")

        aud = d.pop("aud")

        sub = d.pop("sub")

        jti = d.pop("jti")

        amount = d.pop("amount")

        currency = d.pop("currency")

        vendor = d.pop("vendor")

        def _parse_category(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        category = _parse_category(d.pop("category"))

        def _parse_policy(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        policy = _parse_policy(d.pop("policy"))

        livemode = d.pop("livemode")

        iat = d.pop("iat")

        exp = d.pop("exp")

        token_claims = cls(
            iss=iss,
            aud=aud,
            sub=sub,
            jti=jti,
            amount=amount,
            currency=currency,
            vendor=vendor,
            category=category,
            policy=policy,
            livemode=livemode,
            iat=iat,
            exp=exp,
        )

        return token_claims
