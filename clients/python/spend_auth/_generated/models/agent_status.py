from enum import StrEnum


class AgentStatus(StrEnum):
    ACTIVE = "active"
    DEACTIVATED = "deactivated"
    FROZEN = "frozen"

    def __str__(self) -> str:
        return str(self.value)
