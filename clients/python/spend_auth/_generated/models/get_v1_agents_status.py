from enum import StrEnum


class GetV1AgentsStatus(StrEnum):
    ACTIVE = "active"
    DEACTIVATED = "deactivated"
    FROZEN = "frozen"

    def __str__(self) -> str:
        return str(self.value)
