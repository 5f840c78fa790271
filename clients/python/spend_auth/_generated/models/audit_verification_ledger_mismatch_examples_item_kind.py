from enum import StrEnum


class AuditVerificationLedgerMismatchExamplesItemKind(StrEnum):
    DECISION = "decision"
    MANDATE = "mandate"
    SPEND = "spend"
    USAGE = "usage"

    def __str__(self) -> str:
        return str(self.value)
