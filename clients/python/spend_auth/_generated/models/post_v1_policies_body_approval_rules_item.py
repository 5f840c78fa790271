from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PostV1PoliciesBodyApprovalRulesItem")


@_attrs_define
class PostV1PoliciesBodyApprovalRulesItem:
    """
    Attributes:
        above (int):
        approvals_required (int):
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

        post_v1_policies_body_approval_rules_item = cls(
            above=above,
            approvals_required=approvals_required,
        )

        return post_v1_policies_body_approval_rules_item
