from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="PolicySimulationResultsItemHold")


@_attrs_define
class PolicySimulationResultsItemHold:
    """Only when it would be held

    Attributes:
        approvals_required (int): The approvals it would need
        escalates_at (datetime.datetime | None): When it would escalate; null = never
    """

    approvals_required: int
    escalates_at: datetime.datetime | None

    def to_dict(self) -> dict[str, Any]:
        approvals_required = self.approvals_required

        escalates_at: None | str
        if isinstance(self.escalates_at, datetime.datetime):
            escalates_at = self.escalates_at.isoformat()
        else:
            escalates_at = self.escalates_at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "approvals_required": approvals_required,
                "escalates_at": escalates_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        approvals_required = d.pop("approvals_required")

        def _parse_escalates_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                escalates_at_type_0 = datetime.datetime.fromisoformat(data)

                return escalates_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        escalates_at = _parse_escalates_at(d.pop("escalates_at"))

        policy_simulation_results_item_hold = cls(
            approvals_required=approvals_required,
            escalates_at=escalates_at,
        )

        return policy_simulation_results_item_hold
