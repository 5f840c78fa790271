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
    from ..models.policy_approval_rules_item import PolicyApprovalRulesItem
    from ..models.policy_auto_freeze_type_0 import PolicyAutoFreezeType0
    from ..models.policy_velocity_limits_item import PolicyVelocityLimitsItem


T = TypeVar("T", bound="Policy")


@_attrs_define
class Policy:
    """A policy: budgets, vendor and category rules and approval thresholds, bound to one or many agents.

    Attributes:
        id (str): Policy id
        object_ (Literal['policy']):
        name (str): Display name
        currency (str): ISO 4217 code, upper case
        budget_monthly (int): Per-agent cap on approved spend per calendar month (UTC)
        budget_daily (int | None):
        budget_single_max (int): Ceiling on a single transaction
        vendor_allowlist (list[str]): Normalized vendors that skip the hold step; non-empty: any other vendor is held
        vendor_denylist (list[str]): Normalized vendors that are always denied
        require_approval_above (int | None):
        categories_allowed (list[str]): Allowed categories (lower case); empty = any
        active (bool): Inactive policies deny (fail closed)
        approval_timeout_seconds (int): How long a hold waits for a reviewer before it expires
        velocity_limits (list[PolicyVelocityLimitsItem]):
        duplicate_window_seconds (int | None): Identical requests inside this window are held as `duplicate_suspected`;
            null = off
        auto_freeze (None | PolicyAutoFreezeType0): Freeze the agent after this many denials inside the window; null =
            off
        approval_rules (list[PolicyApprovalRulesItem]): Quorum rules: a hold needs the `approvals_required` of the rule
            with the largest `above` below its amount (1 when none applies)
        escalate_after_seconds (int | None): A hold still pending after this emits `approval.escalated` once; null =
            never
        capture_window_seconds (int): An approval not captured within this many seconds expires
        require_signed_requests (bool): Requests made with an agent key of a bound agent (or a vault token of one) must
            be signed (RFC 9421, `tag="web-bot-auth"`); unsigned → 401 `signature_required`
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        created_at (datetime.datetime): Creation time
        updated_at (datetime.datetime): Last change
    """

    id: str
    object_: Literal["policy"]
    name: str
    currency: str
    budget_monthly: int
    budget_daily: int | None
    budget_single_max: int
    vendor_allowlist: list[str]
    vendor_denylist: list[str]
    require_approval_above: int | None
    categories_allowed: list[str]
    active: bool
    approval_timeout_seconds: int
    velocity_limits: list[PolicyVelocityLimitsItem]
    duplicate_window_seconds: int | None
    auto_freeze: None | PolicyAutoFreezeType0
    approval_rules: list[PolicyApprovalRulesItem]
    escalate_after_seconds: int | None
    capture_window_seconds: int
    require_signed_requests: bool
    livemode: bool
    created_at: datetime.datetime
    updated_at: datetime.datetime

    def to_dict(self) -> dict[str, Any]:
        from ..models.policy_auto_freeze_type_0 import PolicyAutoFreezeType0

        id = self.id

        object_ = self.object_

        name = self.name

        currency = self.currency

        budget_monthly = self.budget_monthly

        budget_daily: int | None
        budget_daily = self.budget_daily

        budget_single_max = self.budget_single_max

        vendor_allowlist = self.vendor_allowlist

        vendor_denylist = self.vendor_denylist

        require_approval_above: int | None
        require_approval_above = self.require_approval_above

        categories_allowed = self.categories_allowed

        active = self.active

        approval_timeout_seconds = self.approval_timeout_seconds

        velocity_limits = []
        for velocity_limits_item_data in self.velocity_limits:
            velocity_limits_item = velocity_limits_item_data.to_dict()
            velocity_limits.append(velocity_limits_item)

        duplicate_window_seconds: int | None
        duplicate_window_seconds = self.duplicate_window_seconds

        auto_freeze: dict[str, Any] | None
        if isinstance(self.auto_freeze, PolicyAutoFreezeType0):
            auto_freeze = self.auto_freeze.to_dict()
        else:
            auto_freeze = self.auto_freeze

        approval_rules = []
        for approval_rules_item_data in self.approval_rules:
            approval_rules_item = approval_rules_item_data.to_dict()
            approval_rules.append(approval_rules_item)

        escalate_after_seconds: int | None
        escalate_after_seconds = self.escalate_after_seconds

        capture_window_seconds = self.capture_window_seconds

        require_signed_requests = self.require_signed_requests

        livemode = self.livemode

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "object": object_,
                "name": name,
                "currency": currency,
                "budget_monthly": budget_monthly,
                "budget_daily": budget_daily,
                "budget_single_max": budget_single_max,
                "vendor_allowlist": vendor_allowlist,
                "vendor_denylist": vendor_denylist,
                "require_approval_above": require_approval_above,
                "categories_allowed": categories_allowed,
                "active": active,
                "approval_timeout_seconds": approval_timeout_seconds,
                "velocity_limits": velocity_limits,
                "duplicate_window_seconds": duplicate_window_seconds,
                "auto_freeze": auto_freeze,
                "approval_rules": approval_rules,
                "escalate_after_seconds": escalate_after_seconds,
                "capture_window_seconds": capture_window_seconds,
                "require_signed_requests": require_signed_requests,
                "livemode": livemode,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_approval_rules_item import PolicyApprovalRulesItem
        from ..models.policy_auto_freeze_type_0 import PolicyAutoFreezeType0
        from ..models.policy_velocity_limits_item import PolicyVelocityLimitsItem

        d = dict(src_dict)
        id = d.pop("id")

        object_ = cast(Literal["policy"], d.pop("object"))
        if object_ != "policy":
            raise ValueError(f"object must match const 'policy', got '{object_}'")

        name = d.pop("name")

        currency = d.pop("currency")

        budget_monthly = d.pop("budget_monthly")

        def _parse_budget_daily(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        budget_daily = _parse_budget_daily(d.pop("budget_daily"))

        budget_single_max = d.pop("budget_single_max")

        vendor_allowlist = cast(list[str], d.pop("vendor_allowlist"))

        vendor_denylist = cast(list[str], d.pop("vendor_denylist"))

        def _parse_require_approval_above(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        require_approval_above = _parse_require_approval_above(
            d.pop("require_approval_above")
        )

        categories_allowed = cast(list[str], d.pop("categories_allowed"))

        active = d.pop("active")

        approval_timeout_seconds = d.pop("approval_timeout_seconds")

        velocity_limits = []
        _velocity_limits = d.pop("velocity_limits")
        for velocity_limits_item_data in _velocity_limits:
            velocity_limits_item = PolicyVelocityLimitsItem.from_dict(
                velocity_limits_item_data
            )

            velocity_limits.append(velocity_limits_item)

        def _parse_duplicate_window_seconds(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        duplicate_window_seconds = _parse_duplicate_window_seconds(
            d.pop("duplicate_window_seconds")
        )

        def _parse_auto_freeze(data: object) -> None | PolicyAutoFreezeType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auto_freeze_type_0 = PolicyAutoFreezeType0.from_dict(data)

                return auto_freeze_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicyAutoFreezeType0, data)

        auto_freeze = _parse_auto_freeze(d.pop("auto_freeze"))

        approval_rules = []
        _approval_rules = d.pop("approval_rules")
        for approval_rules_item_data in _approval_rules:
            approval_rules_item = PolicyApprovalRulesItem.from_dict(
                approval_rules_item_data
            )

            approval_rules.append(approval_rules_item)

        def _parse_escalate_after_seconds(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        escalate_after_seconds = _parse_escalate_after_seconds(
            d.pop("escalate_after_seconds")
        )

        capture_window_seconds = d.pop("capture_window_seconds")

        require_signed_requests = d.pop("require_signed_requests")

        livemode = d.pop("livemode")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        policy = cls(
            id=id,
            object_=object_,
            name=name,
            currency=currency,
            budget_monthly=budget_monthly,
            budget_daily=budget_daily,
            budget_single_max=budget_single_max,
            vendor_allowlist=vendor_allowlist,
            vendor_denylist=vendor_denylist,
            require_approval_above=require_approval_above,
            categories_allowed=categories_allowed,
            active=active,
            approval_timeout_seconds=approval_timeout_seconds,
            velocity_limits=velocity_limits,
            duplicate_window_seconds=duplicate_window_seconds,
            auto_freeze=auto_freeze,
            approval_rules=approval_rules,
            escalate_after_seconds=escalate_after_seconds,
            capture_window_seconds=capture_window_seconds,
            require_signed_requests=require_signed_requests,
            livemode=livemode,
            created_at=created_at,
            updated_at=updated_at,
        )

        return policy
