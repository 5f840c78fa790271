from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.decision_capture_type_0_signature_type_0_alg import (
    DecisionCaptureType0SignatureType0Alg,
)

T = TypeVar("T", bound="DecisionCaptureType0SignatureType0")


@_attrs_define
class DecisionCaptureType0SignatureType0:
    """The RFC 9421 `web-bot-auth` signature a request was verified under. It holds no secret.

    Attributes:
        agent_key_id (str): The agent key that verified the signature
        keyid (str): The signature's `keyid`: the key's JWK thumbprint (RFC 7638)
        alg (DecisionCaptureType0SignatureType0Alg): The key's algorithm
        signature_agent (None | str): The covered `Signature-Agent` origin (a key directory); null when none was signed
        created (int): The signature's `created` parameter, Unix seconds, as signed
        nonce (str): The signature's `nonce`, unique per key (a replay is refused)
    """

    agent_key_id: str
    keyid: str
    alg: DecisionCaptureType0SignatureType0Alg
    signature_agent: None | str
    created: int
    nonce: str

    def to_dict(self) -> dict[str, Any]:
        agent_key_id = self.agent_key_id

        keyid = self.keyid

        alg = self.alg.value

        signature_agent: None | str
        signature_agent = self.signature_agent

        created = self.created

        nonce = self.nonce

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "agent_key_id": agent_key_id,
                "keyid": keyid,
                "alg": alg,
                "signature_agent": signature_agent,
                "created": created,
                "nonce": nonce,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        agent_key_id = d.pop("agent_key_id")

        keyid = d.pop("keyid")

        alg = DecisionCaptureType0SignatureType0Alg(d.pop("alg"))

        def _parse_signature_agent(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        signature_agent = _parse_signature_agent(d.pop("signature_agent"))

        created = d.pop("created")

        nonce = d.pop("nonce")

        decision_capture_type_0_signature_type_0 = cls(
            agent_key_id=agent_key_id,
            keyid=keyid,
            alg=alg,
            signature_agent=signature_agent,
            created=created,
            nonce=nonce,
        )

        return decision_capture_type_0_signature_type_0
