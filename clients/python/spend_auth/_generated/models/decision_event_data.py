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

from ..models.decision_event_data_decision import DecisionEventDataDecision
from ..models.decision_event_data_reason_code_type_0 import (
    DecisionEventDataReasonCodeType0,
)
from ..models.decision_event_data_status import DecisionEventDataStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.decision_event_data_approvals_item import (
        DecisionEventDataApprovalsItem,
    )
    from ..models.decision_event_data_capture_type_0 import (
        DecisionEventDataCaptureType0,
    )
    from ..models.decision_event_data_mandate_type_0 import (
        DecisionEventDataMandateType0,
    )
    from ..models.decision_event_data_metadata import DecisionEventDataMetadata
    from ..models.decision_event_data_rail_type_0 import DecisionEventDataRailType0
    from ..models.decision_event_data_signature_type_0 import (
        DecisionEventDataSignatureType0,
    )


T = TypeVar("T", bound="DecisionEventData")


@_attrs_define
class DecisionEventData:
    """The decision object without `authorization_token`: the `data` of `authorize.*` and `authorization.*` events.

    Attributes:
        object_ (Literal['decision']):
        decision_id (str): Decision id
        decision (DecisionEventDataDecision): The outcome; a held decision later reads `approved` or `denied` once
            resolved
        status (DecisionEventDataStatus): `pending` while held; `expired` when the hold timed out (denied)
        reason_code (DecisionEventDataReasonCodeType0 | None): Machine-readable cause; null when approved
        policy_applied (None | str): The evaluated policy; null when the agent had none bound
        agent_id (str): The agent that asked
        amount (int): Requested amount
        currency (str): ISO 4217 code, upper case
        vendor (str): The vendor as sent
        category (None | str): The category (lower case), if sent
        metadata (DecisionEventDataMetadata): Key-value pairs set by the caller
        resolved_at (datetime.datetime | None):
        capture (DecisionEventDataCaptureType0 | None): What the rail did with an approval; null for denied and pending
            decisions
        rail (DecisionEventDataRailType0 | None): The rail request that made this decision (a card swipe); null for
            decisions asked for through the API
        increment_of (None | str): A decision a rail asked for the increase of a card authorization (Stripe's
            incremental authorization): the authorization's first decision; null otherwise
        signature (DecisionEventDataSignatureType0 | None): The signature the request was made under (DECISIONS §19);
            null when unsigned
        mandate (DecisionEventDataMandateType0 | None): The AP2 mandate presentation that made this decision (DECISIONS
            §20); null for decisions asked for otherwise
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        timestamp (datetime.datetime): Server time of the decision
        reason (None | str | Unset): Only when denied or held: the human-readable cause
        expires_at (datetime.datetime | Unset): Only for held decisions: when the hold expires
        approvals_required (int | Unset): Only for held decisions: the distinct approvals the hold needs (its quorum)
        approvals (list[DecisionEventDataApprovalsItem] | Unset): Only for held decisions: the approvals given so far
        requested_by (None | str | Unset): Only for held decisions: the API key that requested the spend (in live mode
            it cannot approve it); null for holds from before this was kept and for those a rail asked for
    """

    object_: Literal["decision"]
    decision_id: str
    decision: DecisionEventDataDecision
    status: DecisionEventDataStatus
    reason_code: DecisionEventDataReasonCodeType0 | None
    policy_applied: None | str
    agent_id: str
    amount: int
    currency: str
    vendor: str
    category: None | str
    metadata: DecisionEventDataMetadata
    resolved_at: datetime.datetime | None
    capture: DecisionEventDataCaptureType0 | None
    rail: DecisionEventDataRailType0 | None
    increment_of: None | str
    signature: DecisionEventDataSignatureType0 | None
    mandate: DecisionEventDataMandateType0 | None
    livemode: bool
    timestamp: datetime.datetime
    reason: None | str | Unset = UNSET
    expires_at: datetime.datetime | Unset = UNSET
    approvals_required: int | Unset = UNSET
    approvals: list[DecisionEventDataApprovalsItem] | Unset = UNSET
    requested_by: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.decision_event_data_capture_type_0 import (
            DecisionEventDataCaptureType0,
        )
        from ..models.decision_event_data_mandate_type_0 import (
            DecisionEventDataMandateType0,
        )
        from ..models.decision_event_data_rail_type_0 import DecisionEventDataRailType0
        from ..models.decision_event_data_signature_type_0 import (
            DecisionEventDataSignatureType0,
        )

        object_ = self.object_

        decision_id = self.decision_id

        decision = self.decision.value

        status = self.status.value

        reason_code: None | str
        if isinstance(self.reason_code, DecisionEventDataReasonCodeType0):
            reason_code = self.reason_code.value
        else:
            reason_code = self.reason_code

        policy_applied: None | str
        policy_applied = self.policy_applied

        agent_id = self.agent_id

        amount = self.amount

        currency = self.currency

        vendor = self.vendor

        category: None | str
        category = self.category

        metadata = self.metadata.to_dict()

        resolved_at: None | str
        if isinstance(self.resolved_at, datetime.datetime):
            resolved_at = self.resolved_at.isoformat()
        else:
            resolved_at = self.resolved_at

        capture: dict[str, Any] | None
        if isinstance(self.capture, DecisionEventDataCaptureType0):
            capture = self.capture.to_dict()
        else:
            capture = self.capture

        rail: dict[str, Any] | None
        if isinstance(self.rail, DecisionEventDataRailType0):
            rail = self.rail.to_dict()
        else:
            rail = self.rail

        increment_of: None | str
        increment_of = self.increment_of

        signature: dict[str, Any] | None
        if isinstance(self.signature, DecisionEventDataSignatureType0):
            signature = self.signature.to_dict()
        else:
            signature = self.signature

        mandate: dict[str, Any] | None
        if isinstance(self.mandate, DecisionEventDataMandateType0):
            mandate = self.mandate.to_dict()
        else:
            mandate = self.mandate

        livemode = self.livemode

        timestamp = self.timestamp.isoformat()

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        expires_at: str | Unset = UNSET
        if not isinstance(self.expires_at, Unset):
            expires_at = self.expires_at.isoformat()

        approvals_required = self.approvals_required

        approvals: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.approvals, Unset):
            approvals = []
            for approvals_item_data in self.approvals:
                approvals_item = approvals_item_data.to_dict()
                approvals.append(approvals_item)

        requested_by: None | str | Unset
        if isinstance(self.requested_by, Unset):
            requested_by = UNSET
        else:
            requested_by = self.requested_by

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "decision_id": decision_id,
                "decision": decision,
                "status": status,
                "reason_code": reason_code,
                "policy_applied": policy_applied,
                "agent_id": agent_id,
                "amount": amount,
                "currency": currency,
                "vendor": vendor,
                "category": category,
                "metadata": metadata,
                "resolved_at": resolved_at,
                "capture": capture,
                "rail": rail,
                "increment_of": increment_of,
                "signature": signature,
                "mandate": mandate,
                "livemode": livemode,
                "timestamp": timestamp,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if approvals_required is not UNSET:
            field_dict["approvals_required"] = approvals_required
        if approvals is not UNSET:
            field_dict["approvals"] = approvals
        if requested_by is not UNSET:
            field_dict["requested_by"] = requested_by

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.decision_event_data_approvals_item import (
            DecisionEventDataApprovalsItem,
        )
        from ..models.decision_event_data_capture_type_0 import (
            DecisionEventDataCaptureType0,
        )
        from ..models.decision_event_data_mandate_type_0 import (
            DecisionEventDataMandateType0,
        )
        from ..models.decision_event_data_metadata import DecisionEventDataMetadata
        from ..models.decision_event_data_rail_type_0 import DecisionEventDataRailType0
        from ..models.decision_event_data_signature_type_0 import (
            DecisionEventDataSignatureType0,
        )

        d = dict(src_dict)
        object_ = cast(Literal["decision"], d.pop("object"))
        if object_ != "decision":
            raise ValueError(f"object must match const 'decision', got '{object_}'")

        decision_id = d.pop("decision_id")

        decision = DecisionEventDataDecision(d.pop("decision"))

        status = DecisionEventDataStatus(d.pop("status"))

        def _parse_reason_code(data: object) -> DecisionEventDataReasonCodeType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_code_type_0 = DecisionEventDataReasonCodeType0(data)

                return reason_code_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DecisionEventDataReasonCodeType0 | None, data)

        reason_code = _parse_reason_code(d.pop("reason_code"))

        def _parse_policy_applied(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        policy_applied = _parse_policy_applied(d.pop("policy_applied"))

        agent_id = d.pop("agent_id")

        amount = d.pop("amount")

        currency = d.pop("currency")

        vendor = d.pop("vendor")

        def _parse_category(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        category = _parse_category(d.pop("category"))

        metadata = DecisionEventDataMetadata.from_dict(d.pop("metadata"))

        def _parse_resolved_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                resolved_at_type_0 = datetime.datetime.fromisoformat(data)

                return resolved_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        resolved_at = _parse_resolved_at(d.pop("resolved_at"))

        def _parse_capture(data: object) -> DecisionEventDataCaptureType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                capture_type_0 = DecisionEventDataCaptureType0.from_dict(data)

                return capture_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DecisionEventDataCaptureType0 | None, data)

        capture = _parse_capture(d.pop("capture"))

        def _parse_rail(data: object) -> DecisionEventDataRailType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rail_type_0 = DecisionEventDataRailType0.from_dict(data)

                return rail_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DecisionEventDataRailType0 | None, data)

        rail = _parse_rail(d.pop("rail"))

        def _parse_increment_of(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        increment_of = _parse_increment_of(d.pop("increment_of"))

        def _parse_signature(data: object) -> DecisionEventDataSignatureType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                signature_type_0 = DecisionEventDataSignatureType0.from_dict(data)

                return signature_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DecisionEventDataSignatureType0 | None, data)

        signature = _parse_signature(d.pop("signature"))

        def _parse_mandate(data: object) -> DecisionEventDataMandateType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                mandate_type_0 = DecisionEventDataMandateType0.from_dict(data)

                return mandate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DecisionEventDataMandateType0 | None, data)

        mandate = _parse_mandate(d.pop("mandate"))

        livemode = d.pop("livemode")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        _expires_at = d.pop("expires_at", UNSET)
        expires_at: datetime.datetime | Unset
        if isinstance(_expires_at, Unset):
            expires_at = UNSET
        else:
            expires_at = datetime.datetime.fromisoformat(_expires_at)

        approvals_required = d.pop("approvals_required", UNSET)

        _approvals = d.pop("approvals", UNSET)
        approvals: list[DecisionEventDataApprovalsItem] | Unset = UNSET
        if _approvals is not UNSET:
            approvals = []
            for approvals_item_data in _approvals:
                approvals_item = DecisionEventDataApprovalsItem.from_dict(
                    approvals_item_data
                )

                approvals.append(approvals_item)

        def _parse_requested_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        requested_by = _parse_requested_by(d.pop("requested_by", UNSET))

        decision_event_data = cls(
            object_=object_,
            decision_id=decision_id,
            decision=decision,
            status=status,
            reason_code=reason_code,
            policy_applied=policy_applied,
            agent_id=agent_id,
            amount=amount,
            currency=currency,
            vendor=vendor,
            category=category,
            metadata=metadata,
            resolved_at=resolved_at,
            capture=capture,
            rail=rail,
            increment_of=increment_of,
            signature=signature,
            mandate=mandate,
            livemode=livemode,
            timestamp=timestamp,
            reason=reason,
            expires_at=expires_at,
            approvals_required=approvals_required,
            approvals=approvals,
            requested_by=requested_by,
        )

        return decision_event_data
