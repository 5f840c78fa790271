from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.policy_simulation_results_item_would_be_decision import (
    PolicySimulationResultsItemWouldBeDecision,
)
from ..models.policy_simulation_results_item_would_be_reason_code_type_0 import (
    PolicySimulationResultsItemWouldBeReasonCodeType0,
)

T = TypeVar("T", bound="PolicySimulationResultsItemWouldBe")


@_attrs_define
class PolicySimulationResultsItemWouldBe:
    """The outcome under the simulated policy

    Attributes:
        decision (PolicySimulationResultsItemWouldBeDecision):
        reason_code (None | PolicySimulationResultsItemWouldBeReasonCodeType0):
    """

    decision: PolicySimulationResultsItemWouldBeDecision
    reason_code: None | PolicySimulationResultsItemWouldBeReasonCodeType0

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision.value

        reason_code: None | str
        if isinstance(
            self.reason_code, PolicySimulationResultsItemWouldBeReasonCodeType0
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
        decision = PolicySimulationResultsItemWouldBeDecision(d.pop("decision"))

        def _parse_reason_code(
            data: object,
        ) -> None | PolicySimulationResultsItemWouldBeReasonCodeType0:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                reason_code_type_0 = PolicySimulationResultsItemWouldBeReasonCodeType0(
                    data
                )

                return reason_code_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicySimulationResultsItemWouldBeReasonCodeType0, data)

        reason_code = _parse_reason_code(d.pop("reason_code"))

        policy_simulation_results_item_would_be = cls(
            decision=decision,
            reason_code=reason_code,
        )

        return policy_simulation_results_item_would_be
