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

T = TypeVar("T", bound="DeletedPolicy")


@_attrs_define
class DeletedPolicy:
    """The answer to deleting a policy.

    Attributes:
        id (str): Policy id
        object_ (Literal['policy']):
        deleted (bool):
    """

    id: str
    object_: Literal["policy"]
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

        object_ = cast(Literal["policy"], d.pop("object"))
        if object_ != "policy":
            raise ValueError(f"object must match const 'policy', got '{object_}'")

        deleted = d.pop("deleted")

        deleted_policy = cls(
            id=id,
            object_=object_,
            deleted=deleted,
        )

        return deleted_policy
