from enum import StrEnum


class GetV1MandatesStatus(StrEnum):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"
    USED = "used"

    def __str__(self) -> str:
        return str(self.value)
