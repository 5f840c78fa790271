from enum import StrEnum


class PostV1RailConnectionsBodyOnTimeout(StrEnum):
    APPROVE = "approve"
    DECLINE = "decline"

    def __str__(self) -> str:
        return str(self.value)
