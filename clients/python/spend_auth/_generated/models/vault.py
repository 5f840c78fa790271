from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define

T = TypeVar("T", bound="Vault")


@_attrs_define
class Vault:
    """A new vault with its `dlt_` token (returned once, by the create call only).

    Attributes:
        id (str): Vault id
        object_ (Literal['vault']):
        name (str): Display name
        agent_id (str): The agent the vault is for
        policy_id (str): The vault's policy (also visible on /v1)
        daily_limit (float | None):
        max_single_transaction (float): Ceiling on one transaction, in USD
        require_approval_above (float | None):
        currency (str): ISO 4217 code, upper case
        token_prefix (str): The first characters of the vault token, to recognize it
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        created_at (datetime.datetime): Creation time
        token (str): The vault token for POST /authorize: shown this once
    """

    id: str
    object_: Literal["vault"]
    name: str
    agent_id: str
    policy_id: str
    daily_limit: float | None
    max_single_transaction: float
    require_approval_above: float | None
    currency: str
    token_prefix: str
    livemode: bool
    created_at: datetime.datetime
    token: str

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        name = self.name

        agent_id = self.agent_id

        policy_id = self.policy_id

        daily_limit: float | None
        daily_limit = self.daily_limit

        max_single_transaction = self.max_single_transaction

        require_approval_above: float | None
        require_approval_above = self.require_approval_above

        currency = self.currency

        token_prefix = self.token_prefix

        livemode = self.livemode

        created_at = self.created_at.isoformat()

        token = self.token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "name": name,
                "agent_id": agent_id,
                "policy_id": policy_id,
                "daily_limit": daily_limit,
                "max_single_transaction": max_single_transaction,
                "require_approval_above": require_approval_above,
                "currency": currency,
                "token_prefix": token_prefix,
                "livemode": livemode,
                "created_at": created_at,
                "token": token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["vault"], d.pop("object"))
        if object_ != "vault":
            raise ValueError(f"object must match const 'vault', got '{object_}'")

        name = d.pop("name")

        agent_id = d.pop("agent_id")

        policy_id = d.pop("policy_id")

        def _parse_daily_limit(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        daily_limit = _parse_daily_limit(d.pop("daily_limit"))

        max_single_transaction = d.pop("max_single_transaction")

        def _parse_require_approval_above(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        require_approval_above = _parse_require_approval_above(
            d.pop("require_approval_above")
        )

        currency = d.pop("currency")

        token_prefix = d.pop("token_prefix")

        livemode = d.pop("livemode")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        token = d.pop("token")

        vault = cls(
            id=id,
            object_=object_,
            name=name,
            agent_id=agent_id,
            policy_id=policy_id,
            daily_limit=daily_limit,
            max_single_transaction=max_single_transaction,
            require_approval_above=require_approval_above,
            currency=currency,
            token_prefix=token_prefix,
            livemode=livemode,
            created_at=created_at,
            token=token,
        )

        return vault
