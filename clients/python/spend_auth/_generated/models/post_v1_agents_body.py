from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_agents_body_metadata import PostV1AgentsBodyMetadata


T = TypeVar("T", bound="PostV1AgentsBody")


@_attrs_define
class PostV1AgentsBody:
    """
    Attributes:
        name (str):
        policy_id (str):
        metadata (PostV1AgentsBodyMetadata | Unset):
    """

    name: str
    policy_id: str
    metadata: PostV1AgentsBodyMetadata | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        policy_id = self.policy_id

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "policy_id": policy_id,
            }
        )
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_agents_body_metadata import PostV1AgentsBodyMetadata

        d = dict(src_dict)
        name = d.pop("name")

        policy_id = d.pop("policy_id")

        _metadata = d.pop("metadata", UNSET)
        metadata: PostV1AgentsBodyMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = PostV1AgentsBodyMetadata.from_dict(_metadata)

        post_v1_agents_body = cls(
            name=name,
            policy_id=policy_id,
            metadata=metadata,
        )

        return post_v1_agents_body
