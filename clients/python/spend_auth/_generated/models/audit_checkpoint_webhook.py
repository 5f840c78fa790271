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
    from ..models.audit_checkpoint_webhook_data import AuditCheckpointWebhookData


T = TypeVar("T", bound="AuditCheckpointWebhook")


@_attrs_define
class AuditCheckpointWebhook:
    """The `audit.checkpoint` webhook body. The day's signed checkpoint of the account and mode's audit chain (sent once a
    day when AUDIT_CHECKPOINT_WEBHOOKS is on).

        Attributes:
            id (str): Event id: receivers dedupe by it
            event (Literal['audit.checkpoint']):
            data (AuditCheckpointWebhookData): The `data` of `audit.checkpoint`: the day's signed checkpoint of this account
                and mode's audit chain.
            timestamp (datetime.datetime): Time of the event
            signature (str): `sha256=<hex>`: HMAC-SHA256 with the endpoint secret of `{"id","event","data","timestamp"}` as
                serialized here; verify the X-Service-Signature header instead, over the raw body
    """

    id: str
    event: Literal["audit.checkpoint"]
    data: AuditCheckpointWebhookData
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
        from ..models.audit_checkpoint_webhook_data import AuditCheckpointWebhookData

        d = dict(src_dict)
        id = d.pop("id")

        event = cast(Literal["audit.checkpoint"], d.pop("event"))
        if event != "audit.checkpoint":
            raise ValueError(
                f"event must match const 'audit.checkpoint', got '{event}'"
            )

        data = AuditCheckpointWebhookData.from_dict(d.pop("data"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        signature = d.pop("signature")

        audit_checkpoint_webhook = cls(
            id=id,
            event=event,
            data=data,
            timestamp=timestamp,
            signature=signature,
        )

        return audit_checkpoint_webhook
