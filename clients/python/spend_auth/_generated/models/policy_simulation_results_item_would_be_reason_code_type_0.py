from enum import StrEnum


class PolicySimulationResultsItemWouldBeReasonCodeType0(StrEnum):
    AGENT_DEACTIVATED = "agent_deactivated"
    AGENT_FROZEN = "agent_frozen"
    APPROVAL_EXPIRED = "approval_expired"
    APPROVAL_REQUIRED = "approval_required"
    BUDGET_EXCEEDED = "budget_exceeded"
    DUPLICATE_SUSPECTED = "duplicate_suspected"
    MANDATE_CONSTRAINT_FAILED = "mandate_constraint_failed"
    MANDATE_INACTIVE = "mandate_inactive"
    MANDATE_MISMATCH = "mandate_mismatch"
    MANDATE_UNRESOLVED = "mandate_unresolved"
    POLICY_DENIED = "policy_denied"
    VELOCITY_EXCEEDED = "velocity_exceeded"

    def __str__(self) -> str:
        return str(self.value)
