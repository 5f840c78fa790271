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

if TYPE_CHECKING:
    from ..models.policy_simulation_results_item import PolicySimulationResultsItem
    from ..models.policy_simulation_summary import PolicySimulationSummary


T = TypeVar("T", bound="PolicySimulation")


@_attrs_define
class PolicySimulation:
    """What a policy would have decided: no budget, audit, usage or event changes.

    Attributes:
        object_ (Literal['policy_simulation']):
        policy_id (None | str): The saved policy simulated; null for an unsaved policy body
        summary (PolicySimulationSummary): Counts over all results
        results (list[PolicySimulationResultsItem]): One result per request, in request order
    """

    object_: Literal["policy_simulation"]
    policy_id: None | str
    summary: PolicySimulationSummary
    results: list[PolicySimulationResultsItem]

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_

        policy_id: None | str
        policy_id = self.policy_id

        summary = self.summary.to_dict()

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "policy_id": policy_id,
                "summary": summary,
                "results": results,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.policy_simulation_results_item import PolicySimulationResultsItem
        from ..models.policy_simulation_summary import PolicySimulationSummary

        d = dict(src_dict)
        object_ = cast(Literal["policy_simulation"], d.pop("object"))
        if object_ != "policy_simulation":
            raise ValueError(
                f"object must match const 'policy_simulation', got '{object_}'"
            )

        def _parse_policy_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        policy_id = _parse_policy_id(d.pop("policy_id"))

        summary = PolicySimulationSummary.from_dict(d.pop("summary"))

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = PolicySimulationResultsItem.from_dict(results_item_data)

            results.append(results_item)

        policy_simulation = cls(
            object_=object_,
            policy_id=policy_id,
            summary=summary,
            results=results,
        )

        return policy_simulation
