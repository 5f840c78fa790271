from enum import StrEnum


class ErrorErrorCode(StrEnum):
    AGENT_DEACTIVATED = "agent_deactivated"
    AGENT_FROZEN = "agent_frozen"
    CONFLICT = "conflict"
    FORBIDDEN = "forbidden"
    INTERNAL_ERROR = "internal_error"
    INVALID_REQUEST = "invalid_request"
    NOT_FOUND = "not_found"
    RATE_LIMITED = "rate_limited"
    SERVICE_UNAVAILABLE = "service_unavailable"
    SIGNATURE_EXPIRED = "signature_expired"
    SIGNATURE_INVALID = "signature_invalid"
    SIGNATURE_KEY_UNKNOWN = "signature_key_unknown"
    SIGNATURE_REPLAYED = "signature_replayed"
    SIGNATURE_REQUIRED = "signature_required"
    UNAUTHORIZED = "unauthorized"

    def __str__(self) -> str:
        return str(self.value)
