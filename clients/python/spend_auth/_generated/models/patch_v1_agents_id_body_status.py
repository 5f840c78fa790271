from enum import StrEnum


class PatchV1AgentsIdBodyStatus(StrEnum):
    ACTIVE = "active"
    FROZEN = "frozen"

    def __str__(self) -> str:
        return str(self.value)
