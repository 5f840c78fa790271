from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1AuthorizationTokensVerifyBody")


@_attrs_define
class PostV1AuthorizationTokensVerifyBody:
    """
    Attributes:
        token (str):
        consume (bool | Unset):
    """

    token: str
    consume: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        consume = self.consume

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "token": token,
            }
        )
        if consume is not UNSET:
            field_dict["consume"] = consume

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        token = d.pop("token")

        consume = d.pop("consume", UNSET)

        post_v1_authorization_tokens_verify_body = cls(
            token=token,
            consume=consume,
        )

        return post_v1_authorization_tokens_verify_body
