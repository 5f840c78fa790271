from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1WebhookEndpointsIdRotateSecretBody")


@_attrs_define
class PostV1WebhookEndpointsIdRotateSecretBody:
    """
    Attributes:
        previous_secret_expires_in (int | Unset): Seconds the previous secret keeps signing deliveries (in X-Service-
            Signature-Previous) after this rotation; 0 (default) ends it at once Default: 0.
    """

    previous_secret_expires_in: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        previous_secret_expires_in = self.previous_secret_expires_in

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if previous_secret_expires_in is not UNSET:
            field_dict["previous_secret_expires_in"] = previous_secret_expires_in

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        previous_secret_expires_in = d.pop("previous_secret_expires_in", UNSET)

        post_v1_webhook_endpoints_id_rotate_secret_body = cls(
            previous_secret_expires_in=previous_secret_expires_in,
        )

        return post_v1_webhook_endpoints_id_rotate_secret_body
