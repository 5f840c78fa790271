from enum import StrEnum


class MandateVerificationErrorType0(StrEnum):
    INVALID_CREDENTIAL = "invalid_credential"
    INVALID_MANDATE = "invalid_mandate"
    MANDATES_NOT_SUPPORTED = "mandates_not_supported"
    UNRESOLVED_CONSTRAINT = "unresolved_constraint"

    def __str__(self) -> str:
        return str(self.value)
