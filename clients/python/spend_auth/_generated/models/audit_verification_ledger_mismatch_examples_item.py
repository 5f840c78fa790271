from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.audit_verification_ledger_mismatch_examples_item_kind import (
    AuditVerificationLedgerMismatchExamplesItemKind,
)

if TYPE_CHECKING:
    from ..models.audit_verification_ledger_mismatch_examples_item_expected import (
        AuditVerificationLedgerMismatchExamplesItemExpected,
    )
    from ..models.audit_verification_ledger_mismatch_examples_item_found import (
        AuditVerificationLedgerMismatchExamplesItemFound,
    )


T = TypeVar("T", bound="AuditVerificationLedgerMismatchExamplesItem")


@_attrs_define
class AuditVerificationLedgerMismatchExamplesItem:
    """One place where the books do not balance

    Attributes:
        kind (AuditVerificationLedgerMismatchExamplesItemKind): `decision`: a decision differs from its audit records;
            `spend`: an agent spend counter differs from its decisions; `mandate`: a mandate's `uses` or `budget_used`
            differs from its approved decisions; `usage`: a live month's usage count differs from its decision records
        id (str): The decision's id, for `spend` the agent's id, for `mandate` the mandate's id, for `usage` the
            account's id
        expected (AuditVerificationLedgerMismatchExamplesItemExpected): What the records say: for `decision` the
            differing fields (`amount`, `currency`, `vendor`, `agent_id`, `decision`, `capture_status`, `captured_amount`,
            `spend_month`, `spend_day`, `mandate_id`); for `usage` `{month, checks}` counted from the live decision records;
            for `spend` `{period, approved, reserved}` recomputed from the decisions; for `mandate` `{uses, budget_used}`
            recomputed from the decisions approved under it (`found` null when no mandate of this account and mode has that
            id)
        found (AuditVerificationLedgerMismatchExamplesItemFound): What is stored, with the same fields
    """

    kind: AuditVerificationLedgerMismatchExamplesItemKind
    id: str
    expected: AuditVerificationLedgerMismatchExamplesItemExpected
    found: AuditVerificationLedgerMismatchExamplesItemFound

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        id = self.id

        expected = self.expected.to_dict()

        found = self.found.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "id": id,
                "expected": expected,
                "found": found,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit_verification_ledger_mismatch_examples_item_expected import (
            AuditVerificationLedgerMismatchExamplesItemExpected,
        )
        from ..models.audit_verification_ledger_mismatch_examples_item_found import (
            AuditVerificationLedgerMismatchExamplesItemFound,
        )

        d = dict(src_dict)
        kind = AuditVerificationLedgerMismatchExamplesItemKind(d.pop("kind"))

        id = d.pop("id")

        expected = AuditVerificationLedgerMismatchExamplesItemExpected.from_dict(
            d.pop("expected")
        )

        found = AuditVerificationLedgerMismatchExamplesItemFound.from_dict(
            d.pop("found")
        )

        audit_verification_ledger_mismatch_examples_item = cls(
            kind=kind,
            id=id,
            expected=expected,
            found=found,
        )

        return audit_verification_ledger_mismatch_examples_item
