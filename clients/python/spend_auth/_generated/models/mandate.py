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

from ..models.mandate_status import MandateStatus

if TYPE_CHECKING:
    from ..models.mandate_metadata import MandateMetadata
    from ..models.mandate_open_mandate import MandateOpenMandate


T = TypeVar("T", bound="Mandate")


@_attrs_define
class Mandate:
    """An AP2 open Payment Mandate issued to an agent (DECISIONS §20).

    Attributes:
        id (str): Mandate id: the credential's `jti`
        object_ (Literal['mandate']):
        agent_id (str): The agent it lets pay
        agent_key_id (str): The agent's P-256 key bound as its `cnf`: only that key can close it
        status (MandateStatus): `active`; `used` (single-use and approved once, or `max_occurrences` reached); `revoked`
            (by a call, its agent key's revocation or its agent's deactivation); `expired` (active past `expires_at`)
        credential (str): The SD-JWT (RFC 9901) with every disclosure, ending `~`: header `{alg: "ES256", typ:
            "mandate+sd-jwt", kid}`, verifiable with the JWKS. The agent closes it with its key
        open_mandate (MandateOpenMandate): The open Payment Mandate the credential discloses, resolved (no digests)
        category (None | str): The category its payments are decided under; null when none
        uses (int): Approved presentations so far
        budget_used (int): Sum of the approved amounts, minor units (voids and expiries do not give it back)
        last_used_at (datetime.datetime | None):
        expires_at (datetime.datetime): When it stops verifying
        revoked_at (datetime.datetime | None):
        created_at (datetime.datetime): Issuance time
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        metadata (MandateMetadata): Key-value pairs set by the caller
    """

    id: str
    object_: Literal["mandate"]
    agent_id: str
    agent_key_id: str
    status: MandateStatus
    credential: str
    open_mandate: MandateOpenMandate
    category: None | str
    uses: int
    budget_used: int
    last_used_at: datetime.datetime | None
    expires_at: datetime.datetime
    revoked_at: datetime.datetime | None
    created_at: datetime.datetime
    livemode: bool
    metadata: MandateMetadata

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        agent_id = self.agent_id

        agent_key_id = self.agent_key_id

        status = self.status.value

        credential = self.credential

        open_mandate = self.open_mandate.to_dict()

        category: None | str
        category = self.category

        uses = self.uses

        budget_used = self.budget_used

        last_used_at: None | str
        if isinstance(self.last_used_at, datetime.datetime):
            last_used_at = self.last_used_at.isoformat()
        else:
            last_used_at = self.last_used_at

        expires_at = self.expires_at.isoformat()

        revoked_at: None | str
        if isinstance(self.revoked_at, datetime.datetime):
            revoked_at = self.revoked_at.isoformat()
        else:
            revoked_at = self.revoked_at

        created_at = self.created_at.isoformat()

        livemode = self.livemode

        metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "agent_id": agent_id,
                "agent_key_id": agent_key_id,
                "status": status,
                "credential": credential,
                "open_mandate": open_mandate,
                "category": category,
                "uses": uses,
                "budget_used": budget_used,
                "last_used_at": last_used_at,
                "expires_at": expires_at,
                "revoked_at": revoked_at,
                "created_at": created_at,
                "livemode": livemode,
                "metadata": metadata,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mandate_metadata import MandateMetadata
        from ..models.mandate_open_mandate import MandateOpenMandate

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["mandate"], d.pop("object"))
        if object_ != "mandate":
            raise ValueError(f"object must match const 'mandate', got '{object_}'")

        agent_id = d.pop("agent_id")

        agent_key_id = d.pop("agent_key_id")

        status = MandateStatus(d.pop("status"))

        credential = d.pop("credential")

        open_mandate = MandateOpenMandate.from_dict(d.pop("open_mandate"))

        def _parse_category(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        category = _parse_category(d.pop("category"))

        uses = d.pop("uses")

        budget_used = d.pop("budget_used")

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

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

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

        metadata = MandateMetadata.from_dict(d.pop("metadata"))

        mandate = cls(
            id=id,
            object_=object_,
            agent_id=agent_id,
            agent_key_id=agent_key_id,
            status=status,
            credential=credential,
            open_mandate=open_mandate,
            category=category,
            uses=uses,
            budget_used=budget_used,
            last_used_at=last_used_at,
            expires_at=expires_at,
            revoked_at=revoked_at,
            created_at=created_at,
            livemode=livemode,
            metadata=metadata,
        )

        return mandate
