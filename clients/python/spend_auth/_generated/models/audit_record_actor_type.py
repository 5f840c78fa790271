from enum import StrEnum


class AuditRecordActorType(StrEnum):
    API_KEY = "api_key"
    OPERATOR = "operator"
    REVIEWER = "reviewer"
    SYSTEM = "system"

    def __str__(self) -> str:
        return str(self.value)
