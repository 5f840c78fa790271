from enum import StrEnum


class PatchV1AgentsIdBodyKycStatus(StrEnum):
    PENDING = "pending"
    REJECTED = "rejected"
    VERIFIED = "verified"

    def __str__(self) -> str:
        return str(self.value)
