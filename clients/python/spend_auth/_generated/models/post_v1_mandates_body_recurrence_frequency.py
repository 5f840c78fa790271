from enum import StrEnum


class PostV1MandatesBodyRecurrenceFrequency(StrEnum):
    ANNUALLY = "ANNUALLY"
    BIWEEKLY = "BIWEEKLY"
    DAILY = "DAILY"
    MONTHLY = "MONTHLY"
    ON_DEMAND = "ON_DEMAND"
    QUARTERLY = "QUARTERLY"
    WEEKLY = "WEEKLY"

    def __str__(self) -> str:
        return str(self.value)
