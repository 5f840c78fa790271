from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="DecisionApprovalsItem")


@_attrs_define
class DecisionApprovalsItem:
    """One reviewer's approval of a hold.

    Attributes:
        api_key_id (None | str): The approving key; null for an operator's signal
        name (str): The key's name (or the operator's) when it approved
        note (None | str): The reviewer's note
        at (datetime.datetime): When it approved
    """

    api_key_id: None | str
    name: str
    note: None | str
    at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        api_key_id: None | str
        api_key_id = self.api_key_id

        name = self.name

        note: None | str
        note = self.note

        at = self.at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "api_key_id": api_key_id,
                "name": name,
                "note": note,
                "at": at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_api_key_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        api_key_id = _parse_api_key_id(d.pop("api_key_id"))

        name = d.pop("name")

        def _parse_note(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        note = _parse_note(d.pop("note"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        decision_approvals_item = cls(
            api_key_id=api_key_id,
            name=name,
            note=note,
            at=at,
        )

        return decision_approvals_item
