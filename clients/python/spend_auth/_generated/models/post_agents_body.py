from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostAgentsBody")


@_attrs_define
class PostAgentsBody:
    """
    Attributes:
        name (str):
        agent_type (str | Unset):
    """

    name: str
    agent_type: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        agent_type = self.agent_type

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if agent_type is not UNSET:
            field_dict["agent_type"] = agent_type

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        agent_type = d.pop("agent_type", UNSET)

        post_agents_body = cls(
            name=name,
            agent_type=agent_type,
        )

        return post_agents_body
