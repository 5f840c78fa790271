from enum import StrEnum


class CreatedApiKeyRole(StrEnum):
    ADMIN = "admin"
    AGENT = "agent"
    REVIEWER = "reviewer"

    def __str__(self) -> str:
        return str(self.value)
