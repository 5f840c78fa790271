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

T = TypeVar("T", bound="DeletedRailConnection")


@_attrs_define
class DeletedRailConnection:
    """The answer to deleting a rail connection: its endpoint refuses every request from now on.

    Attributes:
        id (str): Connection id
        object_ (Literal['rail_connection']):
        deleted (bool):
    """

    id: str
    object_: Literal["rail_connection"]
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

        object_ = cast(Literal["rail_connection"], d.pop("object"))
        if object_ != "rail_connection":
            raise ValueError(
                f"object must match const 'rail_connection', got '{object_}'"
            )

        deleted = d.pop("deleted")

        deleted_rail_connection = cls(
            id=id,
            object_=object_,
            deleted=deleted,
        )

        return deleted_rail_connection
