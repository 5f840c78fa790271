from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.approval_completed_data_outcome import ApprovalCompletedDataOutcome
from ..models.approval_completed_data_reason_code_type_0 import (
    ApprovalCompletedDataReasonCodeType0,
)

T = TypeVar("T", bound="ApprovalCompletedData")


@_attrs_define
class ApprovalCompletedData:
    """The `data` of `approval.completed`: how a held request was resolved.

    Attributes:
        decision_id (str): The held decision
        outcome (ApprovalCompletedDataOutcome): How the hold ended (an expired hold is denied)
        reason_code (ApprovalCompletedDataReasonCodeType0 | None): Null when approved; `approval_expired`,
            `agent_frozen`, `agent_deactivated` or `policy_denied` when denied
        note (None | str): The reviewer's note, if any
        resolved_by (str): The resolving API key id, the operator named in the signal, or `system`
        resolved_at (datetime.datetime): Resolution time
    """

    decision_id: str
    outcome: ApprovalCompletedDataOutcome
    reason_code: ApprovalCompletedDataReasonCodeType0 | None
    note: None | str
    resolved_by: str
    resolved_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        decision_id = self.decision_id

        outcome = self.outcome.value

        reason_code: None | str
        if isinstance(self.reason_code, ApprovalCompletedDataReasonCodeType0):
            reason_code = self.reason_code.value
        else:
            reason_code = self.reason_code

        note: None | str
        note = self.note

        resolved_by = self.resolved_by

        resolved_at = self.resolved_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "decision_id": decision_id,
                "outcome": outcome,
                "reason_code": reason_code,
                "note": note,
                "resolved_by": resolved_by,
                "resolved_at": resolved_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        decision_id = d.pop("decision_id")

        outcome = ApprovalCompletedDataOutcome(d.pop("outcome"))

        def _parse_reason_code(
            data: object,
        ) -> ApprovalCompletedDataReasonCodeType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_code_type_0 = ApprovalCompletedDataReasonCodeType0(data)

                return reason_code_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApprovalCompletedDataReasonCodeType0 | None, data)

        reason_code = _parse_reason_code(d.pop("reason_code"))

        def _parse_note(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        note = _parse_note(d.pop("note"))

        resolved_by = d.pop("resolved_by")

        resolved_at = datetime.datetime.fromisoformat(d.pop("resolved_at"))

        approval_completed_data = cls(
            decision_id=decision_id,
            outcome=outcome,
            reason_code=reason_code,
            note=note,
            resolved_by=resolved_by,
            resolved_at=resolved_at,
        )

        return approval_completed_data
