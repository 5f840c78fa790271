from enum import StrEnum


class MandateVerificationStatus(StrEnum):
    ERROR = "Error"
    SUCCESS = "Success"

    def __str__(self) -> str:
        return str(self.value)
