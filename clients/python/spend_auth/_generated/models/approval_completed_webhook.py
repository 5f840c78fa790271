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
    from ..models.approval_completed_data import ApprovalCompletedData


T = TypeVar("T", bound="ApprovalCompletedWebhook")


@_attrs_define
class ApprovalCompletedWebhook:
    """The `approval.completed` webhook body. A held request was resolved (approved, denied or expired).

    Attributes:
        id (str): Event id: receivers dedupe by it
        event (Literal['approval.completed']):
        data (ApprovalCompletedData): The `data` of `approval.completed`: how a held request was resolved.
        timestamp (datetime.datetime): Time of the event
        signature (str): `sha256=<hex>`: HMAC-SHA256 with the endpoint secret of `{"id","event","data","timestamp"}` as
            serialized here; verify the X-Service-Signature header instead, over the raw body
    """

    id: str
    event: Literal["approval.completed"]
    data: ApprovalCompletedData
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
        from ..models.approval_completed_data import ApprovalCompletedData

        d = dict(src_dict)
        id = d.pop("id")

        event = cast(Literal["approval.completed"], d.pop("event"))
        if event != "approval.completed":
            raise ValueError(
                f"event must match const 'approval.completed', got '{event}'"
            )

        data = ApprovalCompletedData.from_dict(d.pop("data"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        signature = d.pop("signature")

        approval_completed_webhook = cls(
            id=id,
            event=event,
            data=data,
            timestamp=timestamp,
            signature=signature,
        )

        return approval_completed_webhook
