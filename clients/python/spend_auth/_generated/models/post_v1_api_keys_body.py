from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v1_api_keys_body_mode import PostV1ApiKeysBodyMode
from ..models.post_v1_api_keys_body_role import PostV1ApiKeysBodyRole
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV1ApiKeysBody")


@_attrs_define
class PostV1ApiKeysBody:
    """
    Attributes:
        name (str):
        role (PostV1ApiKeysBodyRole):
        mode (PostV1ApiKeysBodyMode | Unset):
        agent_id (str | Unset):
    """

    name: str
    role: PostV1ApiKeysBodyRole
    mode: PostV1ApiKeysBodyMode | Unset = UNSET
    agent_id: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        role = self.role.value

        mode: str | Unset = UNSET
        if not isinstance(self.mode, Unset):
            mode = self.mode.value

        agent_id = self.agent_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "role": role,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode
        if agent_id is not UNSET:
            field_dict["agent_id"] = agent_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        role = PostV1ApiKeysBodyRole(d.pop("role"))

        _mode = d.pop("mode", UNSET)
        mode: PostV1ApiKeysBodyMode | Unset
        if isinstance(_mode, Unset):
            mode = UNSET
        else:
            mode = PostV1ApiKeysBodyMode(_mode)

        agent_id = d.pop("agent_id", UNSET)

        post_v1_api_keys_body = cls(
            name=name,
            role=role,
            mode=mode,
            agent_id=agent_id,
        )

        return post_v1_api_keys_body
