from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PolicySimulationSummary")


@_attrs_define
class PolicySimulationSummary:
    """Counts over all results

    Attributes:
        approved (int): Requests that would be approved
        denied (int): Requests that would be denied
        held (int): Requests that would be held
        changed (int): Replayed requests whose outcome would differ from the recorded one
    """

    approved: int
    denied: int
    held: int
    changed: int

    def to_dict(self) -> dict[str, Any]:
        approved = self.approved

        denied = self.denied

        held = self.held

        changed = self.changed

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "approved": approved,
                "denied": denied,
                "held": held,
                "changed": changed,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        approved = d.pop("approved")

        denied = d.pop("denied")

        held = d.pop("held")

        changed = d.pop("changed")

        policy_simulation_summary = cls(
            approved=approved,
            denied=denied,
            held=held,
            changed=changed,
        )

        return policy_simulation_summary
