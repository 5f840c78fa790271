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
    from ..models.event_type_9_data_type_1 import EventType9DataType1


T = TypeVar("T", bound="EventType9")


@_attrs_define
class EventType9:
    """
    Attributes:
        id (str): Event id
        object_ (Literal['event']):
        event (Literal['authorization.adjusted']):
        data (DecisionEventData | EventType9DataType1):
        timestamp (datetime.datetime): Time of the event
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
    """

    id: str
    object_: Literal["event"]
    event: Literal["authorization.adjusted"]
    data: DecisionEventData | EventType9DataType1
    timestamp: datetime.datetime
    livemode: bool

    def to_dict(self) -> dict[str, Any]:
        from ..models.decision_event_data import DecisionEventData

        id = self.id

        object_ = self.object_

        event = self.event

        data: dict[str, Any]
        if isinstance(self.data, DecisionEventData):
            data = self.data.to_dict()
        else:
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
        from ..models.event_type_9_data_type_1 import EventType9DataType1

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["event"], d.pop("object"))
        if object_ != "event":
            raise ValueError(f"object must match const 'event', got '{object_}'")

        event = cast(Literal["authorization.adjusted"], d.pop("event"))
        if event != "authorization.adjusted":
            raise ValueError(
                f"event must match const 'authorization.adjusted', got '{event}'"
            )

        def _parse_data(data: object) -> DecisionEventData | EventType9DataType1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                data_type_0 = DecisionEventData.from_dict(data)

                return data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            data_type_1 = EventType9DataType1.from_dict(data)

            return data_type_1

        data = _parse_data(d.pop("data"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        livemode = d.pop("livemode")

        event_type_9 = cls(
            id=id,
            object_=object_,
            event=event,
            data=data,
            timestamp=timestamp,
            livemode=livemode,
        )

        return event_type_9
