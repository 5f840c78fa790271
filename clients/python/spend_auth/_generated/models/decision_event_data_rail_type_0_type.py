from enum import StrEnum


class DecisionEventDataRailType0Type(StrEnum):
    STRIPE_ISSUING = "stripe_issuing"

    def __str__(self) -> str:
        return str(self.value)
