from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.approval_escalated_data import ApprovalEscalatedData


T = TypeVar("T", bound="ApprovalEscalatedWebhook")


@_attrs_define
class ApprovalEscalatedWebhook:
    """The `approval.escalated` webhook body. A hold is still pending at its escalation time (`escalate_after_seconds`).

    Attributes:
        id (str): Event id: receivers dedupe by it
        event (Literal['approval.escalated']):
        data (ApprovalEscalatedData): The `data` of `approval.escalated`: a hold still pending at its escalation time.
        timestamp (datetime.datetime): Time of the event
        signature (str): `sha256=<hex>`: HMAC-SHA256 with the endpoint secret of `{"id","event","data","timestamp"}` as
            serialized here; verify the X-Service-Signature header instead, over the raw body
    """

    id: str
    event: Literal["approval.escalated"]
    data: ApprovalEscalatedData
    timestamp: datetime.datetime
    signature: str

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        event = self.event

        data = self.data.to_dict()

        timestamp = self.timestamp.isoformat()

        signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "event": event,
                "data": data,
                "timestamp": timestamp,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.approval_escalated_data import ApprovalEscalatedData

        d = dict(src_dict)
        id = d.pop("id")

        event = cast(Literal["approval.escalated"], d.pop("event"))
        if event != "approval.escalated":
            raise ValueError(
                f"event must match const 'approval.escalated', got '{event}'"
            )

        data = ApprovalEscalatedData.from_dict(d.pop("data"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        signature = d.pop("signature")

        approval_escalated_webhook = cls(
            id=id,
            event=event,
            data=data,
            timestamp=timestamp,
            signature=signature,
        )

        return approval_escalated_webhook
