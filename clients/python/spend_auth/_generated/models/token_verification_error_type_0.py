from enum import StrEnum


class TokenVerificationErrorType0(StrEnum):
    AGENT_INACTIVE = "agent_inactive"
    BAD_SIGNATURE = "bad_signature"
    CONSUMED = "consumed"
    EXPIRED = "expired"
    MALFORMED = "malformed"
    UNKNOWN_KEY = "unknown_key"
    UNKNOWN_TOKEN = "unknown_token"
    VOIDED = "voided"
    WRONG_AUDIENCE = "wrong_audience"
    WRONG_ISSUER = "wrong_issuer"

    def __str__(self) -> str:
        return str(self.value)
