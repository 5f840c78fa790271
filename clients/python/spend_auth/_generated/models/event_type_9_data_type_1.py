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
    from ..models.event_type_9_data_type_1_rail import EventType9DataType1Rail


T = TypeVar("T", bound="EventType9DataType1")


@_attrs_define
class EventType9DataType1:
    """Money a card moved that no decision approved: counted against its agent at once, past its budget if need be.

    Attributes:
        object_ (Literal['card_capture']):
        agent_id (str): The agent whose card moved the money
        rail (EventType9DataType1Rail): Where the card moved the money
        amount (int): What it counts against the agent now: what was captured, less refunds (minor units)
        previous_amount (int): What it counted before this event
        currency (str): ISO 4217, upper case
        over_capture_amount (int): The same as `amount`: nothing of it was approved
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        created_at (datetime.datetime): When it was first counted
    """

    object_: Literal["card_capture"]
    agent_id: str
    rail: EventType9DataType1Rail
    amount: int
    previous_amount: int
    currency: str
    over_capture_amount: int
    livemode: bool
    created_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        agent_id = self.agent_id

        rail = self.rail.to_dict()

        amount = self.amount

        previous_amount = self.previous_amount

        currency = self.currency

        over_capture_amount = self.over_capture_amount

        livemode = self.livemode

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "agent_id": agent_id,
                "rail": rail,
                "amount": amount,
                "previous_amount": previous_amount,
                "currency": currency,
                "over_capture_amount": over_capture_amount,
                "livemode": livemode,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.event_type_9_data_type_1_rail import EventType9DataType1Rail

        d = dict(src_dict)
        object_ = cast(Literal["card_capture"], d.pop("object"))
        if object_ != "card_capture":
            raise ValueError(f"object must match const 'card_capture', got '{object_}'")

        agent_id = d.pop("agent_id")

        rail = EventType9DataType1Rail.from_dict(d.pop("rail"))

        amount = d.pop("amount")

        previous_amount = d.pop("previous_amount")

        currency = d.pop("currency")

        over_capture_amount = d.pop("over_capture_amount")

        livemode = d.pop("livemode")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        event_type_9_data_type_1 = cls(
            object_=object_,
            agent_id=agent_id,
            rail=rail,
            amount=amount,
            previous_amount=previous_amount,
            currency=currency,
            over_capture_amount=over_capture_amount,
            livemode=livemode,
            created_at=created_at,
        )

        return event_type_9_data_type_1
