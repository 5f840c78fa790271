from enum import StrEnum


class PatchV1WebhookEndpointsIdBodyEventsItem(StrEnum):
    AGENT_FROZEN = "agent.frozen"
    APPROVAL_COMPLETED = "approval.completed"
    APPROVAL_ESCALATED = "approval.escalated"
    AUDIT_CHECKPOINT = "audit.checkpoint"
    AUTHORIZATION_ADJUSTED = "authorization.adjusted"
    AUTHORIZATION_CAPTURED = "authorization.captured"
    AUTHORIZATION_EXPIRED = "authorization.expired"
    AUTHORIZATION_VOIDED = "authorization.voided"
    AUTHORIZE_APPROVED = "authorize.approved"
    AUTHORIZE_DENIED = "authorize.denied"
    AUTHORIZE_HELD = "authorize.held"
    VALUE_11 = "*"

    def __str__(self) -> str:
        return str(self.value)
