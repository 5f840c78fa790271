from enum import StrEnum


class ApiKeyRole(StrEnum):
    ADMIN = "admin"
    AGENT = "agent"
    REVIEWER = "reviewer"

    def __str__(self) -> str:
        return str(self.value)
