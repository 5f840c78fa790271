from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.post_rails_stripe_issuing_id_body_data import (
        PostRailsStripeIssuingIdBodyData,
    )


T = TypeVar("T", bound="PostRailsStripeIssuingIdBody")


@_attrs_define
class PostRailsStripeIssuingIdBody:
    """A Stripe event, signed by Stripe (`Stripe-Signature`).

    Attributes:
        id (str): The event id (`evt_…`): a repeat gets the first answer
        type_ (str): `issuing_authorization.request` (answered with a decision), `issuing_authorization.created`,
            `issuing_authorization.updated`, `issuing_transaction.created`; any other type is received and ignored
        livemode (bool): Must match the connection's mode
        created (int): Unix seconds
        data (PostRailsStripeIssuingIdBodyData):
    """

    id: str
    type_: str
    livemode: bool
    created: int
    data: PostRailsStripeIssuingIdBodyData
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_

        livemode = self.livemode

        created = self.created

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "livemode": livemode,
                "created": created,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_rails_stripe_issuing_id_body_data import (
            PostRailsStripeIssuingIdBodyData,
        )

        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        livemode = d.pop("livemode")

        created = d.pop("created")

        data = PostRailsStripeIssuingIdBodyData.from_dict(d.pop("data"))

        post_rails_stripe_issuing_id_body = cls(
            id=id,
            type_=type_,
            livemode=livemode,
            created=created,
            data=data,
        )

        post_rails_stripe_issuing_id_body.additional_properties = d
        return post_rails_stripe_issuing_id_body

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
