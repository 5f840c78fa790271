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

from ..models.approval_decision import ApprovalDecision
from ..models.approval_reason_code_type_0 import ApprovalReasonCodeType0
from ..models.approval_status import ApprovalStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.approval_approvals_item import ApprovalApprovalsItem
    from ..models.approval_capture_type_0 import ApprovalCaptureType0
    from ..models.approval_mandate_type_0 import ApprovalMandateType0
    from ..models.approval_metadata import ApprovalMetadata
    from ..models.approval_rail_type_0 import ApprovalRailType0
    from ..models.approval_signature_type_0 import ApprovalSignatureType0


T = TypeVar("T", bound="Approval")


@_attrs_define
class Approval:
    """A spend decision: approved (with a `gca_` token), denied, or held for a reviewer.

    Attributes:
        object_ (Literal['decision']):
        decision_id (str): Decision id
        decision (ApprovalDecision): The outcome; a held decision later reads `approved` or `denied` once resolved
        status (ApprovalStatus): `pending` while held; `expired` when the hold timed out (denied)
        reason_code (ApprovalReasonCodeType0 | None): Machine-readable cause; null when approved
        policy_applied (None | str): The evaluated policy; null when the agent had none bound
        agent_id (str): The agent that asked
        amount (int): Requested amount
        currency (str): ISO 4217 code, upper case
        vendor (str): The vendor as sent
        category (None | str): The category (lower case), if sent
        metadata (ApprovalMetadata): Key-value pairs set by the caller
        resolved_at (datetime.datetime | None):
        capture (ApprovalCaptureType0 | None): What the rail did with an approval; null for denied and pending decisions
        rail (ApprovalRailType0 | None): The rail request that made this decision (a card swipe); null for decisions
            asked for through the API
        increment_of (None | str): A decision a rail asked for the increase of a card authorization (Stripe's
            incremental authorization): the authorization's first decision; null otherwise
        signature (ApprovalSignatureType0 | None): The signature the request was made under (DECISIONS §19); null when
            unsigned
        mandate (ApprovalMandateType0 | None): The AP2 mandate presentation that made this decision (DECISIONS §20);
            null for decisions asked for otherwise
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        timestamp (datetime.datetime): Server time of the decision
        authorization_token (str | Unset): Only when approved: the signed token (`gca_` + compact JWS) to pass to the
            rail
        reason (None | str | Unset): Only when denied or held: the human-readable cause
        expires_at (datetime.datetime | Unset): Only for held decisions: when the hold expires
        approvals_required (int | Unset): Only for held decisions: the distinct approvals the hold needs (its quorum)
        approvals (list[ApprovalApprovalsItem] | Unset): Only for held decisions: the approvals given so far
        requested_by (None | str | Unset): Only for held decisions: the API key that requested the spend (in live mode
            it cannot approve it); null for holds from before this was kept and for those a rail asked for
    """

    object_: Literal["decision"]
    decision_id: str
    decision: ApprovalDecision
    status: ApprovalStatus
    reason_code: ApprovalReasonCodeType0 | None
    policy_applied: None | str
    agent_id: str
    amount: int
    currency: str
    vendor: str
    category: None | str
    metadata: ApprovalMetadata
    resolved_at: datetime.datetime | None
    capture: ApprovalCaptureType0 | None
    rail: ApprovalRailType0 | None
    increment_of: None | str
    signature: ApprovalSignatureType0 | None
    mandate: ApprovalMandateType0 | None
    livemode: bool
    timestamp: datetime.datetime
    authorization_token: str | Unset = UNSET
    reason: None | str | Unset = UNSET
    expires_at: datetime.datetime | Unset = UNSET
    approvals_required: int | Unset = UNSET
    approvals: list[ApprovalApprovalsItem] | Unset = UNSET
    requested_by: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.approval_capture_type_0 import ApprovalCaptureType0
        from ..models.approval_mandate_type_0 import ApprovalMandateType0
        from ..models.approval_rail_type_0 import ApprovalRailType0
        from ..models.approval_signature_type_0 import ApprovalSignatureType0

        object_ = self.object_

        decision_id = self.decision_id

        decision = self.decision.value

        status = self.status.value

        reason_code: None | str
        if isinstance(self.reason_code, ApprovalReasonCodeType0):
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
        if isinstance(self.capture, ApprovalCaptureType0):
            capture = self.capture.to_dict()
        else:
            capture = self.capture

        rail: dict[str, Any] | None
        if isinstance(self.rail, ApprovalRailType0):
            rail = self.rail.to_dict()
        else:
            rail = self.rail

        increment_of: None | str
        increment_of = self.increment_of

        signature: dict[str, Any] | None
        if isinstance(self.signature, ApprovalSignatureType0):
            signature = self.signature.to_dict()
        else:
            signature = self.signature

        mandate: dict[str, Any] | None
        if isinstance(self.mandate, ApprovalMandateType0):
            mandate = self.mandate.to_dict()
        else:
            mandate = self.mandate

        livemode = self.livemode

        timestamp = self.timestamp.isoformat()

        authorization_token = self.authorization_token

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
        if authorization_token is not UNSET:
            field_dict["authorization_token"] = authorization_token
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
        from ..models.approval_approvals_item import ApprovalApprovalsItem
        from ..models.approval_capture_type_0 import ApprovalCaptureType0
        from ..models.approval_mandate_type_0 import ApprovalMandateType0
        from ..models.approval_metadata import ApprovalMetadata
        from ..models.approval_rail_type_0 import ApprovalRailType0
        from ..models.approval_signature_type_0 import ApprovalSignatureType0

        d = dict(src_dict)
        object_ = cast(Literal["decision"], d.pop("object"))
        if object_ != "decision":
            raise ValueError(f"object must match const 'decision', got '{object_}'")

        decision_id = d.pop("decision_id")

        decision = ApprovalDecision(d.pop("decision"))

        status = ApprovalStatus(d.pop("status"))

        def _parse_reason_code(data: object) -> ApprovalReasonCodeType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_code_type_0 = ApprovalReasonCodeType0(data)

                return reason_code_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApprovalReasonCodeType0 | None, data)

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

        metadata = ApprovalMetadata.from_dict(d.pop("metadata"))

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

        def _parse_capture(data: object) -> ApprovalCaptureType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                capture_type_0 = ApprovalCaptureType0.from_dict(data)

                return capture_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApprovalCaptureType0 | None, data)

        capture = _parse_capture(d.pop("capture"))

        def _parse_rail(data: object) -> ApprovalRailType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rail_type_0 = ApprovalRailType0.from_dict(data)

                return rail_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApprovalRailType0 | None, data)

        rail = _parse_rail(d.pop("rail"))

        def _parse_increment_of(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        increment_of = _parse_increment_of(d.pop("increment_of"))

        def _parse_signature(data: object) -> ApprovalSignatureType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                signature_type_0 = ApprovalSignatureType0.from_dict(data)

                return signature_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApprovalSignatureType0 | None, data)

        signature = _parse_signature(d.pop("signature"))

        def _parse_mandate(data: object) -> ApprovalMandateType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                mandate_type_0 = ApprovalMandateType0.from_dict(data)

                return mandate_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApprovalMandateType0 | None, data)

        mandate = _parse_mandate(d.pop("mandate"))

        livemode = d.pop("livemode")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        authorization_token = d.pop("authorization_token", UNSET)

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
        approvals: list[ApprovalApprovalsItem] | Unset = UNSET
        if _approvals is not UNSET:
            approvals = []
            for approvals_item_data in _approvals:
                approvals_item = ApprovalApprovalsItem.from_dict(approvals_item_data)

                approvals.append(approvals_item)

        def _parse_requested_by(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        requested_by = _parse_requested_by(d.pop("requested_by", UNSET))

        approval = cls(
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
            authorization_token=authorization_token,
            reason=reason,
            expires_at=expires_at,
            approvals_required=approvals_required,
            approvals=approvals,
            requested_by=requested_by,
        )

        return approval
