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

from ..models.audit_verification_checkpoint_check_type_0 import (
    AuditVerificationCheckpointCheckType0,
)

if TYPE_CHECKING:
    from ..models.audit_verification_first_invalid_type_0 import (
        AuditVerificationFirstInvalidType0,
    )
    from ..models.audit_verification_ledger_mismatch_examples_item import (
        AuditVerificationLedgerMismatchExamplesItem,
    )


T = TypeVar("T", bound="AuditVerification")


@_attrs_define
class AuditVerification:
    """The result of recomputing the audit hash chain.

    Attributes:
        object_ (Literal['audit_verification']):
        valid (bool): True when every record and the stored head verify, no decision lacks its record, the books balance
            (`ledger_mismatches` is 0) and a given checkpoint matched
        records (int): Records checked
        head_hash (str): Hash of the last record that verifies (the genesis hash when none does)
        first_invalid (AuditVerificationFirstInvalidType0 | None): The first record that does not verify; null when
            valid
        first_invalid_sequence (int | None): Sequence of `first_invalid` (kept for existing clients)
        decisions_without_record (int): Decisions of this account and mode that have no `authorization.decision` record;
            any makes `valid` false
        records_without_decision (int): Sealed `authorization.decision` records of this account and mode whose decision
            is gone (a decision row deleted behind the API); any makes `valid` false
        ledger_mismatches (int): Places where the books do not balance: decisions whose amount, currency, vendor, agent
            or outcome differ from their `authorization.decision` record (the outcome from a resolved hold's latest
            `approval.completed` record), approvals whose capture status or captured amount differ from their latest
            lifecycle record (`authorization.captured`, `.adjusted`, `.voided`, `.expired`), agent spend counters (each
            period of each agent) that differ from the sum recomputed from the decisions, their captures, voids, expiries
            and releases, and mandates whose `uses` or `budget_used` differ from the count and sum of the decisions approved
            under them; any makes `valid` false
        ledger_mismatch_examples (list[AuditVerificationLedgerMismatchExamplesItem]): Up to 10 of the mismatches,
            decisions first
        checkpoint (str): A signed checkpoint of the head that verified: a compact JWS (EdDSA, `kid` in the JWKS, header
            `typ: "audit-checkpoint+jwt"`) with claims `{aud: account id, livemode, sequence, head_hash, iat}`. Keep it
            outside the service and pass it back as `?checkpoint=`
        checkpoint_check (AuditVerificationCheckpointCheckType0 | None): With `?checkpoint=`: whether the record at its
            sequence is still there with its hash (`mismatched` makes `valid` false); null without it
    """

    object_: Literal["audit_verification"]
    valid: bool
    records: int
    head_hash: str
    first_invalid: AuditVerificationFirstInvalidType0 | None
    first_invalid_sequence: int | None
    decisions_without_record: int
    records_without_decision: int
    ledger_mismatches: int
    ledger_mismatch_examples: list[AuditVerificationLedgerMismatchExamplesItem]
    checkpoint: str
    checkpoint_check: AuditVerificationCheckpointCheckType0 | None

    def to_dict(self) -> dict[str, Any]:
        from ..models.audit_verification_first_invalid_type_0 import (
            AuditVerificationFirstInvalidType0,
        )

        object_ = self.object_

        valid = self.valid

        records = self.records

        head_hash = self.head_hash

        first_invalid: dict[str, Any] | None
        if isinstance(self.first_invalid, AuditVerificationFirstInvalidType0):
            first_invalid = self.first_invalid.to_dict()
        else:
            first_invalid = self.first_invalid

        first_invalid_sequence: int | None
        first_invalid_sequence = self.first_invalid_sequence

        decisions_without_record = self.decisions_without_record

        records_without_decision = self.records_without_decision

        ledger_mismatches = self.ledger_mismatches

        ledger_mismatch_examples = []
        for ledger_mismatch_examples_item_data in self.ledger_mismatch_examples:
            ledger_mismatch_examples_item = ledger_mismatch_examples_item_data.to_dict()
            ledger_mismatch_examples.append(ledger_mismatch_examples_item)

        checkpoint = self.checkpoint

        checkpoint_check: None | str
        if isinstance(self.checkpoint_check, AuditVerificationCheckpointCheckType0):
            checkpoint_check = self.checkpoint_check.value
        else:
            checkpoint_check = self.checkpoint_check

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "object": object_,
                "valid": valid,
                "records": records,
                "head_hash": head_hash,
                "first_invalid": first_invalid,
                "first_invalid_sequence": first_invalid_sequence,
                "decisions_without_record": decisions_without_record,
                "records_without_decision": records_without_decision,
                "ledger_mismatches": ledger_mismatches,
                "ledger_mismatch_examples": ledger_mismatch_examples,
                "checkpoint": checkpoint,
                "checkpoint_check": checkpoint_check,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.audit_verification_first_invalid_type_0 import (
            AuditVerificationFirstInvalidType0,
        )
        from ..models.audit_verification_ledger_mismatch_examples_item import (
            AuditVerificationLedgerMismatchExamplesItem,
        )

        d = dict(src_dict)
        object_ = cast(Literal["audit_verification"], d.pop("object"))
        if object_ != "audit_verification":
            raise ValueError(
                f"object must match const 'audit_verification', got '{object_}'"
            )

        valid = d.pop("valid")

        records = d.pop("records")

        head_hash = d.pop("head_hash")

        def _parse_first_invalid(
            data: object,
        ) -> AuditVerificationFirstInvalidType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                first_invalid_type_0 = AuditVerificationFirstInvalidType0.from_dict(
                    data
                )

                return first_invalid_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuditVerificationFirstInvalidType0 | None, data)

        first_invalid = _parse_first_invalid(d.pop("first_invalid"))

        def _parse_first_invalid_sequence(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        first_invalid_sequence = _parse_first_invalid_sequence(
            d.pop("first_invalid_sequence")
        )

        decisions_without_record = d.pop("decisions_without_record")

        records_without_decision = d.pop("records_without_decision")

        ledger_mismatches = d.pop("ledger_mismatches")

        ledger_mismatch_examples = []
        _ledger_mismatch_examples = d.pop("ledger_mismatch_examples")
        for ledger_mismatch_examples_item_data in _ledger_mismatch_examples:
            ledger_mismatch_examples_item = (
                AuditVerificationLedgerMismatchExamplesItem.from_dict(
                    ledger_mismatch_examples_item_data
                )
            )

            ledger_mismatch_examples.append(ledger_mismatch_examples_item)

        checkpoint = d.pop("checkpoint")

        def _parse_checkpoint_check(
            data: object,
        ) -> AuditVerificationCheckpointCheckType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                checkpoint_check_type_0 = AuditVerificationCheckpointCheckType0(data)

                return checkpoint_check_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuditVerificationCheckpointCheckType0 | None, data)

        checkpoint_check = _parse_checkpoint_check(d.pop("checkpoint_check"))

        audit_verification = cls(
            object_=object_,
            valid=valid,
            records=records,
            head_hash=head_hash,
            first_invalid=first_invalid,
            first_invalid_sequence=first_invalid_sequence,
            decisions_without_record=decisions_without_record,
            records_without_decision=records_without_decision,
            ledger_mismatches=ledger_mismatches,
            ledger_mismatch_examples=ledger_mismatch_examples,
            checkpoint=checkpoint,
            checkpoint_check=checkpoint_check,
        )

        return audit_verification
