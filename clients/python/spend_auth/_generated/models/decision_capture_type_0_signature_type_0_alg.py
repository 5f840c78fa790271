from enum import StrEnum


class DecisionCaptureType0SignatureType0Alg(StrEnum):
    ECDSA_P256_SHA256 = "ecdsa-p256-sha256"
    ED25519 = "ed25519"

    def __str__(self) -> str:
        return str(self.value)
