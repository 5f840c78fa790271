from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AuditVerificationLedgerMismatchExamplesItemExpected")


@_attrs_define
class AuditVerificationLedgerMismatchExamplesItemExpected:
    """What the records say: for `decision` the differing fields (`amount`, `currency`, `vendor`, `agent_id`, `decision`,
    `capture_status`, `captured_amount`, `spend_month`, `spend_day`, `mandate_id`); for `usage` `{month, checks}`
    counted from the live decision records; for `spend` `{period, approved, reserved}` recomputed from the decisions;
    for `mandate` `{uses, budget_used}` recomputed from the decisions approved under it (`found` null when no mandate of
    this account and mode has that id)

    """

    additional_properties: dict[str, float | None | str] = _attrs_field(
        init=False, factory=dict
    )

    def to_dict(self) -> dict[str, Any]:

        field_dict: dict[str, Any] = {}
        for prop_name, prop in self.additional_properties.items():
            field_dict[prop_name] = prop

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        audit_verification_ledger_mismatch_examples_item_expected = cls()

        additional_properties = {}
        for prop_name, prop_dict in d.items():

            def _parse_additional_property(data: object) -> float | None | str:
                if data is None:
                    return data
                return cast(float | None | str, data)

            additional_property = _parse_additional_property(prop_dict)

            additional_properties[prop_name] = additional_property

        audit_verification_ledger_mismatch_examples_item_expected.additional_properties = additional_properties
        return audit_verification_ledger_mismatch_examples_item_expected

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> float | None | str:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: float | None | str) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
