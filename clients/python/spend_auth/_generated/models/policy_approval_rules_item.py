from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PolicyApprovalRulesItem")


@_attrs_define
class PolicyApprovalRulesItem:
    """A quorum rule

    Attributes:
        above (int): Holds of amounts above this (minor units)…
        approvals_required (int): …need this many distinct approvals
    """

    above: int
    approvals_required: int

    def to_dict(self) -> dict[str, Any]:
        above = self.above

        approvals_required = self.approvals_required

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "above": above,
                "approvals_required": approvals_required,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        above = d.pop("above")

        approvals_required = d.pop("approvals_required")

        policy_approval_rules_item = cls(
            above=above,
            approvals_required=approvals_required,
        )

        return policy_approval_rules_item
