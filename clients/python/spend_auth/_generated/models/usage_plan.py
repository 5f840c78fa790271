from enum import StrEnum


class UsagePlan(StrEnum):
    ENTERPRISE = "enterprise"
    GROWTH = "growth"
    SANDBOX = "sandbox"
    STARTER = "starter"

    def __str__(self) -> str:
        return str(self.value)
