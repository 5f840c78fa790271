from enum import StrEnum


class PostV1ApiKeysBodyRole(StrEnum):
    ADMIN = "admin"
    AGENT = "agent"
    REVIEWER = "reviewer"

    def __str__(self) -> str:
        return str(self.value)
