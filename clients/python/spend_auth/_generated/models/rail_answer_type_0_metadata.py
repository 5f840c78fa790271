from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="RailAnswerType0Metadata")


@_attrs_define
class RailAnswerType0Metadata:
    """Kept by Stripe on the authorization

    Attributes:
        decision_id (str | Unset): The decision made or matched
        reason_code (str | Unset): Only when declined: the decision's reason code, or `unknown_agent`, `agent_frozen`,
            `agent_deactivated`, `invalid_request`, `timeout`
    """

    decision_id: str | Unset = UNSET
    reason_code: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        decision_id = self.decision_id

        reason_code = self.reason_code

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if decision_id is not UNSET:
            field_dict["decision_id"] = decision_id
        if reason_code is not UNSET:
            field_dict["reason_code"] = reason_code

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        decision_id = d.pop("decision_id", UNSET)

        reason_code = d.pop("reason_code", UNSET)

        rail_answer_type_0_metadata = cls(
            decision_id=decision_id,
            reason_code=reason_code,
        )

        return rail_answer_type_0_metadata
