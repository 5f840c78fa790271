from enum import StrEnum


class PostV1AgentsIdKeysBodyJwkCrv(StrEnum):
    ED25519 = "Ed25519"
    P_256 = "P-256"

    def __str__(self) -> str:
        return str(self.value)
