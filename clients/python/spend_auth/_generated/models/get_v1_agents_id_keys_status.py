from enum import StrEnum


class GetV1AgentsIdKeysStatus(StrEnum):
    ACTIVE = "active"
    REVOKED = "revoked"

    def __str__(self) -> str:
        return str(self.value)
