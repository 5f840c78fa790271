from enum import StrEnum


class PostV1ApiKeysBodyMode(StrEnum):
    LIVE = "live"
    TEST = "test"

    def __str__(self) -> str:
        return str(self.value)
