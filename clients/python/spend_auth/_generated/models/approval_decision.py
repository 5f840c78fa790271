from enum import StrEnum


class ApprovalDecision(StrEnum):
    APPROVED = "approved"
    DENIED = "denied"
    HELD = "held"

    def __str__(self) -> str:
        return str(self.value)
