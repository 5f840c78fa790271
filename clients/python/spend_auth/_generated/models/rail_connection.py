from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

from ..models.rail_connection_on_timeout import RailConnectionOnTimeout
from ..models.rail_connection_type import RailConnectionType

T = TypeVar("T", bound="RailConnection")


@_attrs_define
class RailConnection:
    """A rail that asks this service before it moves money: a Stripe Issuing card program. The signing secret is never
    shown.

        Attributes:
            id (str): Connection id
            object_ (Literal['rail_connection']):
            type_ (RailConnectionType): The rail
            livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
            endpoint_url (str): The URL to give the rail: Stripe's real-time authorization webhook (and the issuing events)
                go here
            stripe_version (str): The Stripe API version of the endpoint, sent as `Stripe-Version` on every answer
            on_timeout (RailConnectionOnTimeout): The answer when no decision is reached within the deadline
            created_at (datetime.datetime): Creation time
    """

    id: str
    object_: Literal["rail_connection"]
    type_: RailConnectionType
    livemode: bool
    endpoint_url: str
    stripe_version: str
    on_timeout: RailConnectionOnTimeout
    created_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        type_ = self.type_.value

        livemode = self.livemode

        endpoint_url = self.endpoint_url

        stripe_version = self.stripe_version

        on_timeout = self.on_timeout.value

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "type": type_,
                "livemode": livemode,
                "endpoint_url": endpoint_url,
                "stripe_version": stripe_version,
                "on_timeout": on_timeout,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["rail_connection"], d.pop("object"))
        if object_ != "rail_connection":
            raise ValueError(
                f"object must match const 'rail_connection', got '{object_}'"
            )

        type_ = RailConnectionType(d.pop("type"))

        livemode = d.pop("livemode")

        endpoint_url = d.pop("endpoint_url")

        stripe_version = d.pop("stripe_version")

        on_timeout = RailConnectionOnTimeout(d.pop("on_timeout"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        rail_connection = cls(
            id=id,
            object_=object_,
            type_=type_,
            livemode=livemode,
            endpoint_url=endpoint_url,
            stripe_version=stripe_version,
            on_timeout=on_timeout,
            created_at=created_at,
        )

        return rail_connection
