from __future__ import annotations

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

from ..models.usage_plan import UsagePlan

if TYPE_CHECKING:
    from ..models.usage_daily_item import UsageDailyItem


T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """A month's billable checks and overage, for the calling key's account and mode.

    Attributes:
        object_ (Literal['usage']):
        month (str): The month (YYYY-MM, UTC)
        plan (UsagePlan): The account's plan
        checks (int): Billable checks: HTTP 200 answers of POST /v1/authorize with a live key (always 0 in test mode)
        included (int | None): Checks included in the plan; null = unlimited (test mode, sandbox)
        overage_checks (int): Checks beyond the included ones
        overage_amount (str): What the overage costs, in USD, as a decimal string
        livemode (bool): True for live-mode objects (`gc_live_` keys), false for test mode
        daily (list[UsageDailyItem]): Every UTC day of the month, in order (days to come count 0)
    """

    object_: Literal["usage"]
    month: str
    plan: UsagePlan
    checks: int
    included: int | None
    overage_checks: int
    overage_amount: str
    livemode: bool
    daily: list[UsageDailyItem]

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        month = self.month

        plan = self.plan.value

        checks = self.checks

        included: int | None
        included = self.included

        overage_checks = self.overage_checks

        overage_amount = self.overage_amount

        livemode = self.livemode

        daily = []
        for daily_item_data in self.daily:
            daily_item = daily_item_data.to_dict()
            daily.append(daily_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "month": month,
                "plan": plan,
                "checks": checks,
                "included": included,
                "overage_checks": overage_checks,
                "overage_amount": overage_amount,
                "livemode": livemode,
                "daily": daily,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage_daily_item import UsageDailyItem

        d = dict(src_dict)
        object_ = cast(Literal["usage"], d.pop("object"))
        if object_ != "usage":
            raise ValueError(f"object must match const 'usage', got '{object_}'")

        month = d.pop("month")

        plan = UsagePlan(d.pop("plan"))

        checks = d.pop("checks")

        def _parse_included(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        included = _parse_included(d.pop("included"))

        overage_checks = d.pop("overage_checks")

        overage_amount = d.pop("overage_amount")

        livemode = d.pop("livemode")

        daily = []
        _daily = d.pop("daily")
        for daily_item_data in _daily:
            daily_item = UsageDailyItem.from_dict(daily_item_data)

            daily.append(daily_item)

        usage = cls(
            object_=object_,
            month=month,
            plan=plan,
            checks=checks,
            included=included,
            overage_checks=overage_checks,
            overage_amount=overage_amount,
            livemode=livemode,
            daily=daily,
        )

        return usage
