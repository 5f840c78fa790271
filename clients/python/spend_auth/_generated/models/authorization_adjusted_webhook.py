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
    from ..models.authorization_adjusted_webhook_data_type_1 import (
        AuthorizationAdjustedWebhookDataType1,
    )
    from ..models.decision_event_data import DecisionEventData


T = TypeVar("T", bound="AuthorizationAdjustedWebhook")


@_attrs_define
class AuthorizationAdjustedWebhook:
    """The `authorization.adjusted` webhook body. A rail that asks first reported a new amount for a captured approval (a
    partial reversal, a settlement, a refund, a capture above what was approved); `data` is the decision,
    `capture.captured_amount` the amount it counts now and `capture.over_capture_amount` how far that went over what was
    approved for the card authorization. For money a card moved that no decision approved (a capture on a declined
    authorization, on one approved on the connection's `on_timeout` answer, on one never seen, a force post), `data` is
    a `card_capture`: counted against its agent at once.

        Attributes:
            id (str): Event id: receivers dedupe by it
            event (Literal['authorization.adjusted']):
            data (AuthorizationAdjustedWebhookDataType1 | DecisionEventData):
            timestamp (datetime.datetime): Time of the event
            signature (str): `sha256=<hex>`: HMAC-SHA256 with the endpoint secret of `{"id","event","data","timestamp"}` as
                serialized here; verify the X-Service-Signature header instead, over the raw body
    """

    id: str
    event: Literal["authorization.adjusted"]
    data: AuthorizationAdjustedWebhookDataType1 | DecisionEventData
    timestamp: datetime.datetime
    signature: str

    def to_dict(self) -> dict[str, Any]:
        from ..models.decision_event_data import DecisionEventData

        id = self.id

        event = self.event

        data: dict[str, Any]
        if isinstance(self.data, DecisionEventData):
            data = self.data.to_dict()
        else:
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
        from ..models.authorization_adjusted_webhook_data_type_1 import (
            AuthorizationAdjustedWebhookDataType1,
        )
        from ..models.decision_event_data import DecisionEventData

        d = dict(src_dict)
        id = d.pop("id")

        event = cast(Literal["authorization.adjusted"], d.pop("event"))
        if event != "authorization.adjusted":
            raise ValueError(
                f"event must match const 'authorization.adjusted', got '{event}'"
            )

        def _parse_data(
            data: object,
        ) -> AuthorizationAdjustedWebhookDataType1 | DecisionEventData:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_0 = DecisionEventData.from_dict(data)

                return data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            data_type_1 = AuthorizationAdjustedWebhookDataType1.from_dict(data)

            return data_type_1

        data = _parse_data(d.pop("data"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        signature = d.pop("signature")

        authorization_adjusted_webhook = cls(
            id=id,
            event=event,
            data=data,
            timestamp=timestamp,
            signature=signature,
        )

        return authorization_adjusted_webhook
