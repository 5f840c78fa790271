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

from ..models.quickstart_agent_kyc_status import QuickstartAgentKycStatus
from ..models.quickstart_agent_status import QuickstartAgentStatus

if TYPE_CHECKING:
    from ..models.quickstart_agent_metadata import QuickstartAgentMetadata


T = TypeVar("T", bound="QuickstartAgent")


@_attrs_define
class QuickstartAgent:
    """An agent: a spender that asks before spending, bound to one policy.

    Attributes:
        id (str): Agent id
        object_ (Literal['agent']):
        name (str): Display name
        agent_type (None | str): Free-form kind of agent (set on the quick-start surface); null when not given
        policy_id (None | str): The bound policy; null until one is bound (quick-start agents before their vault)
        status (QuickstartAgentStatus): `active` may obtain authorizations; `frozen` and `deactivated` (terminal) may
            not
        kyc_status (QuickstartAgentKycStatus): Identity check of the human owner; `rejected` makes authorize deny
        metadata (QuickstartAgentMetadata): Key-value pairs set by the caller
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        created_at (datetime.datetime): Registration time
        updated_at (datetime.datetime): Last change
    """

    id: str
    object_: Literal["agent"]
    name: str
    agent_type: None | str
    policy_id: None | str
    status: QuickstartAgentStatus
    kyc_status: QuickstartAgentKycStatus
    metadata: QuickstartAgentMetadata
    livemode: bool
    created_at: datetime.datetime
    updated_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        name = self.name

        agent_type: None | str
        agent_type = self.agent_type

        policy_id: None | str
        policy_id = self.policy_id

        status = self.status.value

        kyc_status = self.kyc_status.value

        metadata = self.metadata.to_dict()

        livemode = self.livemode

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "name": name,
                "agent_type": agent_type,
                "policy_id": policy_id,
                "status": status,
                "kyc_status": kyc_status,
                "metadata": metadata,
                "livemode": livemode,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.quickstart_agent_metadata import QuickstartAgentMetadata

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["agent"], d.pop("object"))
        if object_ != "agent":
            raise ValueError(f"object must match const 'agent', got '{object_}'")

        name = d.pop("name")

        def _parse_agent_type(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        agent_type = _parse_agent_type(d.pop("agent_type"))

        def _parse_policy_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        policy_id = _parse_policy_id(d.pop("policy_id"))

        status = QuickstartAgentStatus(d.pop("status"))

        kyc_status = QuickstartAgentKycStatus(d.pop("kyc_status"))

        metadata = QuickstartAgentMetadata.from_dict(d.pop("metadata"))

        livemode = d.pop("livemode")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        quickstart_agent = cls(
            id=id,
            object_=object_,
            name=name,
            agent_type=agent_type,
            policy_id=policy_id,
            status=status,
            kyc_status=kyc_status,
            metadata=metadata,
            livemode=livemode,
            created_at=created_at,
            updated_at=updated_at,
        )

        return quickstart_agent
