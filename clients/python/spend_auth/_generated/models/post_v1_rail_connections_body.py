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

from ..models.post_v1_rail_connections_body_on_timeout import (
    PostV1RailConnectionsBodyOnTimeout,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1RailConnectionsBody")


@_attrs_define
class PostV1RailConnectionsBody:
    """
    Attributes:
        type_ (Literal['stripe_issuing']): The rail: `stripe_issuing` (Stripe Issuing real-time authorizations)
        signing_secret (str): The endpoint's signing secret from Stripe (`whsec_…`): write-only, never returned
        stripe_version (str | Unset): The Stripe API version of the endpoint, sent back as `Stripe-Version` on every
            answer (default 2026-10-28.endive)
        on_timeout (PostV1RailConnectionsBodyOnTimeout | Unset): The answer when no decision is reached within the
            deadline (1.5 s): `decline` (default) or `approve`
    """

    type_: Literal["stripe_issuing"]
    signing_secret: str
    stripe_version: str | Unset = UNSET
    on_timeout: PostV1RailConnectionsBodyOnTimeout | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        signing_secret = self.signing_secret

        stripe_version = self.stripe_version

        on_timeout: str | Unset = UNSET
        if not isinstance(self.on_timeout, Unset):
            on_timeout = self.on_timeout.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "signing_secret": signing_secret,
            }
        )
        if stripe_version is not UNSET:
            field_dict["stripe_version"] = stripe_version
        if on_timeout is not UNSET:
            field_dict["on_timeout"] = on_timeout

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = cast(Literal["stripe_issuing"], d.pop("type"))
        if type_ != "stripe_issuing":
            raise ValueError(f"type must match const 'stripe_issuing', got '{type_}'")

        signing_secret = d.pop("signing_secret")

        stripe_version = d.pop("stripe_version", UNSET)

        _on_timeout = d.pop("on_timeout", UNSET)
        on_timeout: PostV1RailConnectionsBodyOnTimeout | Unset
        if isinstance(_on_timeout, Unset):
            on_timeout = UNSET
        else:
            on_timeout = PostV1RailConnectionsBodyOnTimeout(_on_timeout)

        post_v1_rail_connections_body = cls(
            type_=type_,
            signing_secret=signing_secret,
            stripe_version=stripe_version,
            on_timeout=on_timeout,
        )

        return post_v1_rail_connections_body
