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

from ..models.created_api_key_created_via import CreatedApiKeyCreatedVia
from ..models.created_api_key_mode import CreatedApiKeyMode
from ..models.created_api_key_role import CreatedApiKeyRole

T = TypeVar("T", bound="CreatedApiKey")


@_attrs_define
class CreatedApiKey:
    """A new API key, with the raw key (returned once, by the create call only).

    Attributes:
        id (str): Key id
        object_ (Literal['api_key']):
        name (str): Display name
        mode (CreatedApiKeyMode): `test` keys start `gc_test_`, `live` keys `gc_live_`
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        role (CreatedApiKeyRole): What the key may do
        agent_id (None | str): For `agent` keys: the one agent it acts for; null otherwise
        prefix (str): The first characters of the key, to recognize it
        created_at (datetime.datetime): Creation time
        revoked_at (datetime.datetime | None):
        last_used_at (datetime.datetime | None):
        created_by (None | str): The API key that minted this one through `POST /v1/api-keys`; null for keys made on the
            command line and for earlier keys whose origin is unknown (`created_via`). Kept for good, also after either key
            is revoked. A key and the keys descending from it count as one person when approving holds
        created_via (CreatedApiKeyCreatedVia): Where the key came from: `api` (minted by `created_by`), `command_line`
            (`spend-auth accounts create`, the embedded bootstrap), or `unknown` (made before this was kept, with no audit
            record naming its origin). Kept for good
        key (str): The raw key: shown this once, never stored
    """

    id: str
    object_: Literal["api_key"]
    name: str
    mode: CreatedApiKeyMode
    livemode: bool
    role: CreatedApiKeyRole
    agent_id: None | str
    prefix: str
    created_at: datetime.datetime
    revoked_at: datetime.datetime | None
    last_used_at: datetime.datetime | None
    created_by: None | str
    created_via: CreatedApiKeyCreatedVia
    key: str

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        name = self.name

        mode = self.mode.value

        livemode = self.livemode

        role = self.role.value

        agent_id: None | str
        agent_id = self.agent_id

        prefix = self.prefix

        created_at = self.created_at.isoformat()

        revoked_at: None | str
        if isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        last_used_at: None | str
        if isinstance(self.last_used_at, datetime.datetime):
            last_used_at = self.last_used_at.isoformat()
        else:
            last_used_at = self.last_used_at

        created_by: None | str
        created_by = self.created_by

        created_via = self.created_via.value

        key = self.key

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "name": name,
                "mode": mode,
                "livemode": livemode,
                "role": role,
                "agent_id": agent_id,
                "prefix": prefix,
                "created_at": created_at,
                "revoked_at": revoked_at,
                "last_used_at": last_used_at,
                "created_by": created_by,
                "created_via": created_via,
                "key": key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["api_key"], d.pop("object"))
        if object_ != "api_key":
            raise ValueError(f"object must match const 'api_key', got '{object_}'")

        name = d.pop("name")

        mode = CreatedApiKeyMode(d.pop("mode"))

        livemode = d.pop("livemode")

        role = CreatedApiKeyRole(d.pop("role"))

        def _parse_agent_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        agent_id = _parse_agent_id(d.pop("agent_id"))

        prefix = d.pop("prefix")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_revoked_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                revoked_at_type_0 = datetime.datetime.fromisoformat(data)

                return revoked_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        revoked_at = _parse_revoked_at(d.pop("revoked_at"))

        def _parse_last_used_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_used_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_used_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        last_used_at = _parse_last_used_at(d.pop("last_used_at"))

        def _parse_created_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        created_by = _parse_created_by(d.pop("created_by"))

        created_via = CreatedApiKeyCreatedVia(d.pop("created_via"))

        key = d.pop("key")

        created_api_key = cls(
            id=id,
            object_=object_,
            name=name,
            mode=mode,
            livemode=livemode,
            role=role,
            agent_id=agent_id,
            prefix=prefix,
            created_at=created_at,
            revoked_at=revoked_at,
            last_used_at=last_used_at,
            created_by=created_by,
            created_via=created_via,
            key=key,
        )

        return created_api_key
