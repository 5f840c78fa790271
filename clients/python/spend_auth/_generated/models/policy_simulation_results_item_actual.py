from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.policy_simulation_results_item_actual_decision import (
    PolicySimulationResultsItemActualDecision,
)
from ..models.policy_simulation_results_item_actual_reason_code_type_0 import (
    PolicySimulationResultsItemActualReasonCodeType0,
)

T = TypeVar("T", bound="PolicySimulationResultsItemActual")


@_attrs_define
class PolicySimulationResultsItemActual:
    """The outcome first recorded (replays only)

    Attributes:
        decision (PolicySimulationResultsItemActualDecision):
        reason_code (None | PolicySimulationResultsItemActualReasonCodeType0):
    """

    decision: PolicySimulationResultsItemActualDecision
    reason_code: None | PolicySimulationResultsItemActualReasonCodeType0

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision.value

        reason_code: None | str
        if isinstance(
            self.reason_code, PolicySimulationResultsItemActualReasonCodeType0
        ):
            reason_code = self.reason_code.value
        else:
            reason_code = self.reason_code

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "decision": decision,
                "reason_code": reason_code,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        decision = PolicySimulationResultsItemActualDecision(d.pop("decision"))

        def _parse_reason_code(
            data: object,
        ) -> None | PolicySimulationResultsItemActualReasonCodeType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_code_type_0 = PolicySimulationResultsItemActualReasonCodeType0(
                    data
                )

                return reason_code_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicySimulationResultsItemActualReasonCodeType0, data)

        reason_code = _parse_reason_code(d.pop("reason_code"))

        policy_simulation_results_item_actual = cls(
            decision=decision,
            reason_code=reason_code,
        )

        return policy_simulation_results_item_actual
