from enum import StrEnum


class RailConnectionType(StrEnum):
    STRIPE_ISSUING = "stripe_issuing"

    def __str__(self) -> str:
        return str(self.value)
