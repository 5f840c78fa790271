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

T = TypeVar("T", bound="DeletedWebhookEndpoint")


@_attrs_define
class DeletedWebhookEndpoint:
    """The answer to deleting a webhook endpoint.

    Attributes:
        id (str): Endpoint id
        object_ (Literal['webhook_endpoint']):
        deleted (bool):
    """

    id: str
    object_: Literal["webhook_endpoint"]
    deleted: bool

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        deleted = self.deleted

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "deleted": deleted,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["webhook_endpoint"], d.pop("object"))
        if object_ != "webhook_endpoint":
            raise ValueError(
                f"object must match const 'webhook_endpoint', got '{object_}'"
            )

        deleted = d.pop("deleted")

        deleted_webhook_endpoint = cls(
            id=id,
            object_=object_,
            deleted=deleted,
        )

        return deleted_webhook_endpoint
