from enum import StrEnum


class DecisionEventDataCaptureType0Status(StrEnum):
    CAPTURED = "captured"
    EXPIRED = "expired"
    UNCAPTURED = "uncaptured"
    VOIDED = "voided"

    def __str__(self) -> str:
        return str(self.value)
