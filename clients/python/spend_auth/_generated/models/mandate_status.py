from enum import StrEnum


class MandateStatus(StrEnum):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"
    USED = "used"

    def __str__(self) -> str:
        return str(self.value)
