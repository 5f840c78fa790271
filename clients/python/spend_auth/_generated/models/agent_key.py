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

from ..models.agent_key_alg import AgentKeyAlg
from ..models.agent_key_status import AgentKeyStatus

if TYPE_CHECKING:
    from ..models.agent_key_jwk_type_0 import AgentKeyJwkType0
    from ..models.agent_key_jwk_type_1 import AgentKeyJwkType1


T = TypeVar("T", bound="AgentKey")


@_attrs_define
class AgentKey:
    """An agent's public signing key (RFC 9421 HTTP Message Signatures, `tag="web-bot-auth"`).

    Attributes:
        id (str): Agent key id
        object_ (Literal['agent_key']):
        agent_id (str): The agent whose requests this key signs
        name (None | str): Display name; null when none was given
        alg (AgentKeyAlg): The RFC 9421 algorithm its signatures use: `ed25519` for an Ed25519 key, `ecdsa-p256-sha256`
            for a P-256 key
        jwk (AgentKeyJwkType0 | AgentKeyJwkType1): The public key, exactly these members
        thumbprint (str): RFC 7638 SHA-256 JWK thumbprint, base64url: the `keyid` of the key's signatures
        directory_url (None | str): The origin of the key directory that must list this key for it to verify (with a
            `Signature-Agent` member equal to it); null for a key not tied to one
        status (AgentKeyStatus): `revoked` keys never verify again
        last_used_at (datetime.datetime | None):
        revoked_at (datetime.datetime | None):
        created_at (datetime.datetime): Registration time
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
    """

    id: str
    object_: Literal["agent_key"]
    agent_id: str
    name: None | str
    alg: AgentKeyAlg
    jwk: AgentKeyJwkType0 | AgentKeyJwkType1
    thumbprint: str
    directory_url: None | str
    status: AgentKeyStatus
    last_used_at: datetime.datetime | None
    revoked_at: datetime.datetime | None
    created_at: datetime.datetime
    livemode: bool

    def to_dict(self) -> dict[str, Any]:
        from ..models.agent_key_jwk_type_0 import AgentKeyJwkType0

        id = self.id

        object_ = self.object_

        agent_id = self.agent_id

        name: None | str
        name = self.name

        alg = self.alg.value

        jwk: dict[str, Any]
        if isinstance(self.jwk, AgentKeyJwkType0):
            jwk = self.jwk.to_dict()
        else:
            jwk = self.jwk.to_dict()

        thumbprint = self.thumbprint

        directory_url: None | str
        directory_url = self.directory_url

        status = self.status.value

        last_used_at: None | str
        if isinstance(self.last_used_at, datetime.datetime):
            last_used_at = self.last_used_at.isoformat()
        else:
            last_used_at = self.last_used_at

        revoked_at: None | str
        if isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        created_at = self.created_at.isoformat()

        livemode = self.livemode

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "agent_id": agent_id,
                "name": name,
                "alg": alg,
                "jwk": jwk,
                "thumbprint": thumbprint,
                "directory_url": directory_url,
                "status": status,
                "last_used_at": last_used_at,
                "revoked_at": revoked_at,
                "created_at": created_at,
                "livemode": livemode,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.agent_key_jwk_type_0 import AgentKeyJwkType0
        from ..models.agent_key_jwk_type_1 import AgentKeyJwkType1

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["agent_key"], d.pop("object"))
        if object_ != "agent_key":
            raise ValueError(f"object must match const 'agent_key', got '{object_}'")

        agent_id = d.pop("agent_id")

        def _parse_name(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        name = _parse_name(d.pop("name"))

        alg = AgentKeyAlg(d.pop("alg"))

        def _parse_jwk(data: object) -> AgentKeyJwkType0 | AgentKeyJwkType1:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                jwk_type_0 = AgentKeyJwkType0.from_dict(data)

                return jwk_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            jwk_type_1 = AgentKeyJwkType1.from_dict(data)

            return jwk_type_1

        jwk = _parse_jwk(d.pop("jwk"))

        thumbprint = d.pop("thumbprint")

        def _parse_directory_url(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        directory_url = _parse_directory_url(d.pop("directory_url"))

        status = AgentKeyStatus(d.pop("status"))

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

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        livemode = d.pop("livemode")

        agent_key = cls(
            id=id,
            object_=object_,
            agent_id=agent_id,
            name=name,
            alg=alg,
            jwk=jwk,
            thumbprint=thumbprint,
            directory_url=directory_url,
            status=status,
            last_used_at=last_used_at,
            revoked_at=revoked_at,
            created_at=created_at,
            livemode=livemode,
        )

        return agent_key
