from enum import StrEnum


class DecisionRailType0Type(StrEnum):
    STRIPE_ISSUING = "stripe_issuing"

    def __str__(self) -> str:
        return str(self.value)
