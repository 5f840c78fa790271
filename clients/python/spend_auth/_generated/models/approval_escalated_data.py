from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.approval_escalated_data_approvals_item import (
        ApprovalEscalatedDataApprovalsItem,
    )


T = TypeVar("T", bound="ApprovalEscalatedData")


@_attrs_define
class ApprovalEscalatedData:
    """The `data` of `approval.escalated`: a hold still pending at its escalation time.

    Attributes:
        decision_id (str): The held decision
        agent_id (str): The agent that asked
        amount (int): Minor units
        currency (str): ISO 4217 code, upper case
        vendor (str):
        approvals_required (int): The quorum of the hold
        approvals (list[ApprovalEscalatedDataApprovalsItem]): The approvals given so far
        escalated_at (datetime.datetime): When it escalated
        expires_at (datetime.datetime | None):
    """

    decision_id: str
    agent_id: str
    amount: int
    currency: str
    vendor: str
    approvals_required: int
    approvals: list[ApprovalEscalatedDataApprovalsItem]
    escalated_at: datetime.datetime
    expires_at: datetime.datetime | None

    def to_dict(self) -> dict[str, Any]:
        decision_id = self.decision_id

        agent_id = self.agent_id

        amount = self.amount

        currency = self.currency

        vendor = self.vendor

        approvals_required = self.approvals_required

        approvals = []
        for approvals_item_data in self.approvals:
            approvals_item = approvals_item_data.to_dict()
            approvals.append(approvals_item)

        escalated_at = self.escalated_at.isoformat()

        expires_at: None | str
        if isinstance(self.expires_at, datetime.datetime):
            expires_at = self.expires_at.isoformat()
        else:
            expires_at = self.expires_at

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "decision_id": decision_id,
                "agent_id": agent_id,
                "amount": amount,
                "currency": currency,
                "vendor": vendor,
                "approvals_required": approvals_required,
                "approvals": approvals,
                "escalated_at": escalated_at,
                "expires_at": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.approval_escalated_data_approvals_item import (
            ApprovalEscalatedDataApprovalsItem,
        )

        d = dict(src_dict)
        decision_id = d.pop("decision_id")

        agent_id = d.pop("agent_id")

        amount = d.pop("amount")

        currency = d.pop("currency")

        vendor = d.pop("vendor")

        approvals_required = d.pop("approvals_required")

        approvals = []
        _approvals = d.pop("approvals")
        for approvals_item_data in _approvals:
            approvals_item = ApprovalEscalatedDataApprovalsItem.from_dict(
                approvals_item_data
            )

            approvals.append(approvals_item)

        escalated_at = datetime.datetime.fromisoformat(d.pop("escalated_at"))

        def _parse_expires_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                expires_at_type_0 = datetime.datetime.fromisoformat(data)

                return expires_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        expires_at = _parse_expires_at(d.pop("expires_at"))

        approval_escalated_data = cls(
            decision_id=decision_id,
            agent_id=agent_id,
            amount=amount,
            currency=currency,
            vendor=vendor,
            approvals_required=approvals_required,
            approvals=approvals,
            escalated_at=escalated_at,
            expires_at=expires_at,
        )

        return approval_escalated_data
