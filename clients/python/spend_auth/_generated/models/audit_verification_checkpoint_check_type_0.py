from enum import StrEnum


class AuditVerificationCheckpointCheckType0(StrEnum):
    MATCHED = "matched"
    MISMATCHED = "mismatched"

    def __str__(self) -> str:
        return str(self.value)
