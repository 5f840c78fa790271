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

from ..models.audit_record_decision_type_0 import AuditRecordDecisionType0

if TYPE_CHECKING:
    from ..models.audit_record_actor import AuditRecordActor
    from ..models.audit_record_metadata import AuditRecordMetadata


T = TypeVar("T", bound="AuditRecord")


@_attrs_define
class AuditRecord:
    """An append-only audit record, linked into a keyed hash chain per account and mode.

    Attributes:
        id (str): Record id
        object_ (Literal['audit_record']):
        type_ (str): What happened: `authorization.decision`, `approval.completed`,
            `agent.created|updated|frozen|unfrozen|deactivated`, `policy.created|updated|deleted`,
            `api_key.created|revoked`, `approval.escalated`, `approval.refused` (an approval sent straight to the workflow
            engine, refused), `authorization.captured|voided|expired`, `webhook_endpoint.*`, `vault.created|revoked`
        actor (AuditRecordActor): Who did it
        signed_by (None | str): The JWK thumbprint (the signature's `keyid`) of the agent key that signed the request
            behind the record; null when unsigned. Inside the record's MAC
        agent_id (None | str):
        decision_id (None | str):
        decision (AuditRecordDecisionType0 | None): For decision records: the outcome
        amount (int | None): Minor units, for decision records
        currency (None | str):
        vendor (None | str):
        category (None | str):
        policy_id (None | str):
        reason (None | str): Reason code or text, where one applies
        metadata (AuditRecordMetadata): Details of the change (for decisions: the request metadata)
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        created_at (datetime.datetime): When it was recorded
        sequence (int | None): Position in the hash chain; null for the moment between commit and sealing
        prev_hash (None | str):
        hash_ (None | str):
    """

    id: str
    object_: Literal["audit_record"]
    type_: str
    actor: AuditRecordActor
    signed_by: None | str
    agent_id: None | str
    decision_id: None | str
    decision: AuditRecordDecisionType0 | None
    amount: int | None
    currency: None | str
    vendor: None | str
    category: None | str
    policy_id: None | str
    reason: None | str
    metadata: AuditRecordMetadata
    livemode: bool
    created_at: datetime.datetime
    sequence: int | None
    prev_hash: None | str
    hash_: None | str

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_

        type_ = self.type_

        actor = self.actor.to_dict()

        signed_by: None | str
        signed_by = self.signed_by

        agent_id: None | str
        agent_id = self.agent_id

        decision_id: None | str
        decision_id = self.decision_id

        decision: None | str
        if isinstance(self.decision, AuditRecordDecisionType0):
            decision = self.decision.value
        else:
            decision = self.decision

        amount: int | None
        amount = self.amount

        currency: None | str
        currency = self.currency

        vendor: None | str
        vendor = self.vendor

        category: None | str
        category = self.category

        policy_id: None | str
        policy_id = self.policy_id

        reason: None | str
        reason = self.reason

        metadata = self.metadata.to_dict()

        livemode = self.livemode

        created_at = self.created_at.isoformat()

        sequence: int | None
        sequence = self.sequence

        prev_hash: None | str
        prev_hash = self.prev_hash

        hash_: None | str
        hash_ = self.hash_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "type": type_,
                "actor": actor,
                "signed_by": signed_by,
                "agent_id": agent_id,
                "decision_id": decision_id,
                "decision": decision,
                "amount": amount,
                "currency": currency,
                "vendor": vendor,
                "category": category,
                "policy_id": policy_id,
                "reason": reason,
                "metadata": metadata,
                "livemode": livemode,
                "created_at": created_at,
                "sequence": sequence,
                "prev_hash": prev_hash,
                "hash": hash_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit_record_actor import AuditRecordActor
        from ..models.audit_record_metadata import AuditRecordMetadata

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["audit_record"], d.pop("object"))
        if object_ != "audit_record":
            raise ValueError(f"object must match const 'audit_record', got '{object_}'")

        type_ = d.pop("type")

        actor = AuditRecordActor.from_dict(d.pop("actor"))

        def _parse_signed_by(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        signed_by = _parse_signed_by(d.pop("signed_by"))

        def _parse_agent_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        agent_id = _parse_agent_id(d.pop("agent_id"))

        def _parse_decision_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        decision_id = _parse_decision_id(d.pop("decision_id"))

        def _parse_decision(data: object) -> AuditRecordDecisionType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                decision_type_0 = AuditRecordDecisionType0(data)

                return decision_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuditRecordDecisionType0 | None, data)

        decision = _parse_decision(d.pop("decision"))

        def _parse_amount(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        amount = _parse_amount(d.pop("amount"))

        def _parse_currency(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        currency = _parse_currency(d.pop("currency"))

        def _parse_vendor(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        vendor = _parse_vendor(d.pop("vendor"))

        def _parse_category(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        category = _parse_category(d.pop("category"))

        def _parse_policy_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        policy_id = _parse_policy_id(d.pop("policy_id"))

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        metadata = AuditRecordMetadata.from_dict(d.pop("metadata"))

        livemode = d.pop("livemode")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        def _parse_sequence(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        sequence = _parse_sequence(d.pop("sequence"))

        def _parse_prev_hash(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        prev_hash = _parse_prev_hash(d.pop("prev_hash"))

        def _parse_hash_(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        hash_ = _parse_hash_(d.pop("hash"))

        audit_record = cls(
            id=id,
            object_=object_,
            type_=type_,
            actor=actor,
            signed_by=signed_by,
            agent_id=agent_id,
            decision_id=decision_id,
            decision=decision,
            amount=amount,
            currency=currency,
            vendor=vendor,
            category=category,
            policy_id=policy_id,
            reason=reason,
            metadata=metadata,
            livemode=livemode,
            created_at=created_at,
            sequence=sequence,
            prev_hash=prev_hash,
            hash_=hash_,
        )

        return audit_record
