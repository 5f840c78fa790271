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
    from ..models.agent import Agent


T = TypeVar("T", bound="AgentFrozenWebhook")


@_attrs_define
class AgentFrozenWebhook:
    """The `agent.frozen` webhook body. An agent was frozen (by a reviewer or by runaway protection); `data` is the agent.

    Attributes:
        id (str): Event id: receivers dedupe by it
        event (Literal['agent.frozen']):
        data (Agent): An agent: a spender that asks before spending, bound to one policy.
        timestamp (datetime.datetime): Time of the event
        signature (str): `sha256=<hex>`: HMAC-SHA256 with the endpoint secret of `{"id","event","data","timestamp"}` as
            serialized here; verify the X-Service-Signature header instead, over the raw body
    """

    id: str
    event: Literal["agent.frozen"]
    data: Agent
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
        from ..models.agent import Agent

        d = dict(src_dict)
        id = d.pop("id")

        event = cast(Literal["agent.frozen"], d.pop("event"))
        if event != "agent.frozen":
            raise ValueError(f"event must match const 'agent.frozen', got '{event}'")

        data = Agent.from_dict(d.pop("data"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        signature = d.pop("signature")

        agent_frozen_webhook = cls(
            id=id,
            event=event,
            data=data,
            timestamp=timestamp,
            signature=signature,
        )

        return agent_frozen_webhook
