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
    from ..models.decision_event_data import DecisionEventData


T = TypeVar("T", bound="AuthorizationCapturedWebhook")


@_attrs_define
class AuthorizationCapturedWebhook:
    """The `authorization.captured` webhook body. The rail captured an approval (all or part of it); `data` is the
    decision.

        Attributes:
            id (str): Event id: receivers dedupe by it
            event (Literal['authorization.captured']):
            data (DecisionEventData): The decision object without `authorization_token`: the `data` of `authorize.*` and
                `authorization.*` events.
            timestamp (datetime.datetime): Time of the event
            signature (str): `sha256=<hex>`: HMAC-SHA256 with the endpoint secret of `{"id","event","data","timestamp"}` as
                serialized here; verify the X-Service-Signature header instead, over the raw body
    """

    id: str
    event: Literal["authorization.captured"]
    data: DecisionEventData
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
        from ..models.decision_event_data import DecisionEventData

        d = dict(src_dict)
        id = d.pop("id")

        event = cast(Literal["authorization.captured"], d.pop("event"))
        if event != "authorization.captured":
            raise ValueError(
                f"event must match const 'authorization.captured', got '{event}'"
            )

        data = DecisionEventData.from_dict(d.pop("data"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        signature = d.pop("signature")

        authorization_captured_webhook = cls(
            id=id,
            event=event,
            data=data,
            timestamp=timestamp,
            signature=signature,
        )

        return authorization_captured_webhook
