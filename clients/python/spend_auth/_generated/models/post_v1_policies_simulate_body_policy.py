from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_v1_policies_simulate_body_policy_approval_rules_item import (
        PostV1PoliciesSimulateBodyPolicyApprovalRulesItem,
    )
    from ..models.post_v1_policies_simulate_body_policy_auto_freeze_type_0 import (
        PostV1PoliciesSimulateBodyPolicyAutoFreezeType0,
    )
    from ..models.post_v1_policies_simulate_body_policy_velocity_limits_item_type_0 import (
        PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0,
    )
    from ..models.post_v1_policies_simulate_body_policy_velocity_limits_item_type_1 import (
        PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType1,
    )


T = TypeVar("T", bound="PostV1PoliciesSimulateBodyPolicy")


@_attrs_define
class PostV1PoliciesSimulateBodyPolicy:
    """
    Attributes:
        name (str):
        budget_monthly (int):
        budget_single_max (int):
        currency (str | Unset):
        budget_daily (int | None | Unset):
        vendor_allowlist (list[str] | Unset):
        vendor_denylist (list[str] | Unset):
        require_approval_above (int | None | Unset):
        categories_allowed (list[str] | Unset):
        active (bool | Unset):
        approval_timeout_seconds (int | Unset):
        velocity_limits (list[PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0 |
            PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType1] | Unset):
        duplicate_window_seconds (int | None | Unset):
        auto_freeze (None | PostV1PoliciesSimulateBodyPolicyAutoFreezeType0 | Unset):
        approval_rules (list[PostV1PoliciesSimulateBodyPolicyApprovalRulesItem] | Unset):
        escalate_after_seconds (int | None | Unset): Seconds a held request waits before it is escalated; at most
            approval_timeout_seconds (the one sent, else the stored one, else the default)
        capture_window_seconds (int | Unset):
        require_signed_requests (bool | Unset): Requests made with a credential bound to one of the policy's agents must
            carry a `web-bot-auth` signature (DECISIONS §19)
    """

    name: str
    budget_monthly: int
    budget_single_max: int
    currency: str | Unset = UNSET
    budget_daily: int | None | Unset = UNSET
    vendor_allowlist: list[str] | Unset = UNSET
    vendor_denylist: list[str] | Unset = UNSET
    require_approval_above: int | None | Unset = UNSET
    categories_allowed: list[str] | Unset = UNSET
    active: bool | Unset = UNSET
    approval_timeout_seconds: int | Unset = UNSET
    velocity_limits: (
        list[
            PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0
            | PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType1
        ]
        | Unset
    ) = UNSET
    duplicate_window_seconds: int | None | Unset = UNSET
    auto_freeze: None | PostV1PoliciesSimulateBodyPolicyAutoFreezeType0 | Unset = UNSET
    approval_rules: list[PostV1PoliciesSimulateBodyPolicyApprovalRulesItem] | Unset = (
        UNSET
    )
    escalate_after_seconds: int | None | Unset = UNSET
    capture_window_seconds: int | Unset = UNSET
    require_signed_requests: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.post_v1_policies_simulate_body_policy_auto_freeze_type_0 import (
            PostV1PoliciesSimulateBodyPolicyAutoFreezeType0,
        )
        from ..models.post_v1_policies_simulate_body_policy_velocity_limits_item_type_0 import (
            PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0,
        )

        name = self.name

        budget_monthly = self.budget_monthly

        budget_single_max = self.budget_single_max

        currency = self.currency

        budget_daily: int | None | Unset
        if isinstance(self.budget_daily, Unset):
            budget_daily = UNSET
        else:
            budget_daily = self.budget_daily

        vendor_allowlist: list[str] | Unset = UNSET
        if not isinstance(self.vendor_allowlist, Unset):
            vendor_allowlist = self.vendor_allowlist

        vendor_denylist: list[str] | Unset = UNSET
        if not isinstance(self.vendor_denylist, Unset):
            vendor_denylist = self.vendor_denylist

        require_approval_above: int | None | Unset
        if isinstance(self.require_approval_above, Unset):
            require_approval_above = UNSET
        else:
            require_approval_above = self.require_approval_above

        categories_allowed: list[str] | Unset = UNSET
        if not isinstance(self.categories_allowed, Unset):
            categories_allowed = self.categories_allowed

        active = self.active

        approval_timeout_seconds = self.approval_timeout_seconds

        velocity_limits: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.velocity_limits, Unset):
            velocity_limits = []
            for velocity_limits_item_data in self.velocity_limits:
                velocity_limits_item: dict[str, Any]
                if isinstance(
                    velocity_limits_item_data,
                    PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0,
                ):
                    velocity_limits_item = velocity_limits_item_data.to_dict()
                else:
                    velocity_limits_item = velocity_limits_item_data.to_dict()

                velocity_limits.append(velocity_limits_item)

        duplicate_window_seconds: int | None | Unset
        if isinstance(self.duplicate_window_seconds, Unset):
            duplicate_window_seconds = UNSET
        else:
            duplicate_window_seconds = self.duplicate_window_seconds

        auto_freeze: dict[str, Any] | None | Unset
        if isinstance(self.auto_freeze, Unset):
            auto_freeze = UNSET
        elif isinstance(
            self.auto_freeze, PostV1PoliciesSimulateBodyPolicyAutoFreezeType0
        ):
            auto_freeze = self.auto_freeze.to_dict()
        else:
            auto_freeze = self.auto_freeze

        approval_rules: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.approval_rules, Unset):
            approval_rules = []
            for approval_rules_item_data in self.approval_rules:
                approval_rules_item = approval_rules_item_data.to_dict()
                approval_rules.append(approval_rules_item)

        escalate_after_seconds: int | None | Unset
        if isinstance(self.escalate_after_seconds, Unset):
            escalate_after_seconds = UNSET
        else:
            escalate_after_seconds = self.escalate_after_seconds

        capture_window_seconds = self.capture_window_seconds

        require_signed_requests = self.require_signed_requests

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "budget_monthly": budget_monthly,
                "budget_single_max": budget_single_max,
            }
        )
        if currency is not UNSET:
            field_dict["currency"] = currency
        if budget_daily is not UNSET:
            field_dict["budget_daily"] = budget_daily
        if vendor_allowlist is not UNSET:
            field_dict["vendor_allowlist"] = vendor_allowlist
        if vendor_denylist is not UNSET:
            field_dict["vendor_denylist"] = vendor_denylist
        if require_approval_above is not UNSET:
            field_dict["require_approval_above"] = require_approval_above
        if categories_allowed is not UNSET:
            field_dict["categories_allowed"] = categories_allowed
        if active is not UNSET:
            field_dict["active"] = active
        if approval_timeout_seconds is not UNSET:
            field_dict["approval_timeout_seconds"] = approval_timeout_seconds
        if velocity_limits is not UNSET:
            field_dict["velocity_limits"] = velocity_limits
        if duplicate_window_seconds is not UNSET:
            field_dict["duplicate_window_seconds"] = duplicate_window_seconds
        if auto_freeze is not UNSET:
            field_dict["auto_freeze"] = auto_freeze
        if approval_rules is not UNSET:
            field_dict["approval_rules"] = approval_rules
        if escalate_after_seconds is not UNSET:
            field_dict["escalate_after_seconds"] = escalate_after_seconds
        if capture_window_seconds is not UNSET:
            field_dict["capture_window_seconds"] = capture_window_seconds
        if require_signed_requests is not UNSET:
            field_dict["require_signed_requests"] = require_signed_requests

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_v1_policies_simulate_body_policy_approval_rules_item import (
            PostV1PoliciesSimulateBodyPolicyApprovalRulesItem,
        )
        from ..models.post_v1_policies_simulate_body_policy_auto_freeze_type_0 import (
            PostV1PoliciesSimulateBodyPolicyAutoFreezeType0,
        )
        from ..models.post_v1_policies_simulate_body_policy_velocity_limits_item_type_0 import (
            PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0,
        )
        from ..models.post_v1_policies_simulate_body_policy_velocity_limits_item_type_1 import (
            PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType1,
        )

        d = dict(src_dict)
        name = d.pop("name")

        budget_monthly = d.pop("budget_monthly")

        budget_single_max = d.pop("budget_single_max")

        currency = d.pop("currency", UNSET)

        def _parse_budget_daily(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        budget_daily = _parse_budget_daily(d.pop("budget_daily", UNSET))

        vendor_allowlist = cast(list[str], d.pop("vendor_allowlist", UNSET))

        vendor_denylist = cast(list[str], d.pop("vendor_denylist", UNSET))

        def _parse_require_approval_above(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        require_approval_above = _parse_require_approval_above(
            d.pop("require_approval_above", UNSET)
        )

        categories_allowed = cast(list[str], d.pop("categories_allowed", UNSET))

        active = d.pop("active", UNSET)

        approval_timeout_seconds = d.pop("approval_timeout_seconds", UNSET)

        _velocity_limits = d.pop("velocity_limits", UNSET)
        velocity_limits: (
            list[
                PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0
                | PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType1
            ]
            | Unset
        ) = UNSET
        if _velocity_limits is not UNSET:
            velocity_limits = []
            for velocity_limits_item_data in _velocity_limits:

                def _parse_velocity_limits_item(
                    data: object,
                ) -> (
                    PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0
                    | PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType1
                ):
                    try:
                        if not isinstance(data, dict):
                            raise TypeError()
                        velocity_limits_item_type_0 = PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0.from_dict(
                            data
                        )

                        return velocity_limits_item_type_0
                    except (TypeError, ValueError, AttributeError, KeyError):
                        pass
                    if not isinstance(data, dict):
                        raise TypeError()
                    velocity_limits_item_type_1 = PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType1.from_dict(
                        data
                    )

                    return velocity_limits_item_type_1

                velocity_limits_item = _parse_velocity_limits_item(
                    velocity_limits_item_data
                )

                velocity_limits.append(velocity_limits_item)

        def _parse_duplicate_window_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        duplicate_window_seconds = _parse_duplicate_window_seconds(
            d.pop("duplicate_window_seconds", UNSET)
        )

        def _parse_auto_freeze(
            data: object,
        ) -> None | PostV1PoliciesSimulateBodyPolicyAutoFreezeType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                auto_freeze_type_0 = (
                    PostV1PoliciesSimulateBodyPolicyAutoFreezeType0.from_dict(data)
                )

                return auto_freeze_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None | PostV1PoliciesSimulateBodyPolicyAutoFreezeType0 | Unset, data
            )

        auto_freeze = _parse_auto_freeze(d.pop("auto_freeze", UNSET))

        _approval_rules = d.pop("approval_rules", UNSET)
        approval_rules: (
            list[PostV1PoliciesSimulateBodyPolicyApprovalRulesItem] | Unset
        ) = UNSET
        if _approval_rules is not UNSET:
            approval_rules = []
            for approval_rules_item_data in _approval_rules:
                approval_rules_item = (
                    PostV1PoliciesSimulateBodyPolicyApprovalRulesItem.from_dict(
                        approval_rules_item_data
                    )
                )

                approval_rules.append(approval_rules_item)

        def _parse_escalate_after_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        escalate_after_seconds = _parse_escalate_after_seconds(
            d.pop("escalate_after_seconds", UNSET)
        )

        capture_window_seconds = d.pop("capture_window_seconds", UNSET)

        require_signed_requests = d.pop("require_signed_requests", UNSET)

        post_v1_policies_simulate_body_policy = cls(
            name=name,
            budget_monthly=budget_monthly,
            budget_single_max=budget_single_max,
            currency=currency,
            budget_daily=budget_daily,
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
        )

        return post_v1_policies_simulate_body_policy
