from enum import StrEnum


class PostV1AgentsIdKeysBodyJwkKty(StrEnum):
    EC = "EC"
    OKP = "OKP"

    def __str__(self) -> str:
        return str(self.value)
