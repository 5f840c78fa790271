from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.policy_simulation_results_item_actual import (
        PolicySimulationResultsItemActual,
    )
    from ..models.policy_simulation_results_item_hold import (
        PolicySimulationResultsItemHold,
    )
    from ..models.policy_simulation_results_item_request import (
        PolicySimulationResultsItemRequest,
    )
    from ..models.policy_simulation_results_item_would_be import (
        PolicySimulationResultsItemWouldBe,
    )


T = TypeVar("T", bound="PolicySimulationResultsItem")


@_attrs_define
class PolicySimulationResultsItem:
    """One simulated request

    Attributes:
        request (PolicySimulationResultsItemRequest): The request simulated
        would_be (PolicySimulationResultsItemWouldBe): The outcome under the simulated policy
        decision_id (str | Unset): The recorded decision replayed (replays only)
        hold (PolicySimulationResultsItemHold | Unset): Only when it would be held
        actual (PolicySimulationResultsItemActual | Unset): The outcome first recorded (replays only)
    """

    request: PolicySimulationResultsItemRequest
    would_be: PolicySimulationResultsItemWouldBe
    decision_id: str | Unset = UNSET
    hold: PolicySimulationResultsItemHold | Unset = UNSET
    actual: PolicySimulationResultsItemActual | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        request = self.request.to_dict()

        would_be = self.would_be.to_dict()

        decision_id = self.decision_id

        hold: dict[str, Any] | Unset = UNSET
        if not isinstance(self.hold, Unset):
            hold = self.hold.to_dict()

        actual: dict[str, Any] | Unset = UNSET
        if not isinstance(self.actual, Unset):
            actual = self.actual.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "request": request,
                "would_be": would_be,
            }
        )
        if decision_id is not UNSET:
            field_dict["decision_id"] = decision_id
        if hold is not UNSET:
            field_dict["hold"] = hold
        if actual is not UNSET:
            field_dict["actual"] = actual

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_simulation_results_item_actual import (
            PolicySimulationResultsItemActual,
        )
        from ..models.policy_simulation_results_item_hold import (
            PolicySimulationResultsItemHold,
        )
        from ..models.policy_simulation_results_item_request import (
            PolicySimulationResultsItemRequest,
        )
        from ..models.policy_simulation_results_item_would_be import (
            PolicySimulationResultsItemWouldBe,
        )

        d = dict(src_dict)
        request = PolicySimulationResultsItemRequest.from_dict(d.pop("request"))

        would_be = PolicySimulationResultsItemWouldBe.from_dict(d.pop("would_be"))

        decision_id = d.pop("decision_id", UNSET)

        _hold = d.pop("hold", UNSET)
        hold: PolicySimulationResultsItemHold | Unset
        if isinstance(_hold, Unset):
            hold = UNSET
        else:
            hold = PolicySimulationResultsItemHold.from_dict(_hold)

        _actual = d.pop("actual", UNSET)
        actual: PolicySimulationResultsItemActual | Unset
        if isinstance(_actual, Unset):
            actual = UNSET
        else:
            actual = PolicySimulationResultsItemActual.from_dict(_actual)

        policy_simulation_results_item = cls(
            request=request,
            would_be=would_be,
            decision_id=decision_id,
            hold=hold,
            actual=actual,
        )

        return policy_simulation_results_item
