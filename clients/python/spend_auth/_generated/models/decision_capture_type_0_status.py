from enum import StrEnum


class DecisionCaptureType0Status(StrEnum):
    CAPTURED = "captured"
    EXPIRED = "expired"
    UNCAPTURED = "uncaptured"
    VOIDED = "voided"

    def __str__(self) -> str:
        return str(self.value)
