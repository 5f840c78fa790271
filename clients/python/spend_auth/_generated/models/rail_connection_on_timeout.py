from enum import StrEnum


class RailConnectionOnTimeout(StrEnum):
    APPROVE = "approve"
    DECLINE = "decline"

    def __str__(self) -> str:
        return str(self.value)
