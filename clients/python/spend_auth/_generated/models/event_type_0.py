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


T = TypeVar("T", bound="EventType0")


@_attrs_define
class EventType0:
    """
    Attributes:
        id (str): Event id
        object_ (Literal['event']):
        event (Literal['authorize.approved']):
        data (DecisionEventData): The decision object without `authorization_token`: the `data` of `authorize.*` and
            `authorization.*` events.
        timestamp (datetime.datetime): Time of the event
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
    """

    id: str
    object_: Literal["event"]
    event: Literal["authorize.approved"]
    data: DecisionEventData
    timestamp: datetime.datetime
    livemode: bool

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        event = self.event

        data = self.data.to_dict()

        timestamp = self.timestamp.isoformat()

        livemode = self.livemode

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "event": event,
                "data": data,
                "timestamp": timestamp,
                "livemode": livemode,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.decision_event_data import DecisionEventData

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["event"], d.pop("object"))
        if object_ != "event":
            raise ValueError(f"object must match const 'event', got '{object_}'")

        event = cast(Literal["authorize.approved"], d.pop("event"))
        if event != "authorize.approved":
            raise ValueError(
                f"event must match const 'authorize.approved', got '{event}'"
            )

        data = DecisionEventData.from_dict(d.pop("data"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        livemode = d.pop("livemode")

        event_type_0 = cls(
            id=id,
            object_=object_,
            event=event,
            data=data,
            timestamp=timestamp,
            livemode=livemode,
        )

        return event_type_0
