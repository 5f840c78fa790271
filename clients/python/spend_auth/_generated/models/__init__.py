"""Contains all the data models used in inputs/outputs"""

from .agent import Agent
from .agent_frozen_webhook import AgentFrozenWebhook
from .agent_key import AgentKey
from .agent_key_alg import AgentKeyAlg
from .agent_key_jwk_type_0 import AgentKeyJwkType0
from .agent_key_jwk_type_1 import AgentKeyJwkType1
from .agent_key_list import AgentKeyList
from .agent_key_status import AgentKeyStatus
from .agent_kyc_status import AgentKycStatus
from .agent_list import AgentList
from .agent_metadata import AgentMetadata
from .agent_status import AgentStatus
from .api_key import ApiKey
from .api_key_created_via import ApiKeyCreatedVia
from .api_key_list import ApiKeyList
from .api_key_mode import ApiKeyMode
from .api_key_role import ApiKeyRole
from .approval import Approval
from .approval_approvals_item import ApprovalApprovalsItem
from .approval_capture_type_0 import ApprovalCaptureType0
from .approval_capture_type_0_metadata_type_0 import ApprovalCaptureType0MetadataType0
from .approval_capture_type_0_signature_type_0 import ApprovalCaptureType0SignatureType0
from .approval_capture_type_0_signature_type_0_alg import (
    ApprovalCaptureType0SignatureType0Alg,
)
from .approval_capture_type_0_status import ApprovalCaptureType0Status
from .approval_completed_data import ApprovalCompletedData
from .approval_completed_data_outcome import ApprovalCompletedDataOutcome
from .approval_completed_data_reason_code_type_0 import (
    ApprovalCompletedDataReasonCodeType0,
)
from .approval_completed_webhook import ApprovalCompletedWebhook
from .approval_decision import ApprovalDecision
from .approval_escalated_data import ApprovalEscalatedData
from .approval_escalated_data_approvals_item import ApprovalEscalatedDataApprovalsItem
from .approval_escalated_webhook import ApprovalEscalatedWebhook
from .approval_list import ApprovalList
from .approval_mandate_type_0 import ApprovalMandateType0
from .approval_metadata import ApprovalMetadata
from .approval_rail_type_0 import ApprovalRailType0
from .approval_rail_type_0_type import ApprovalRailType0Type
from .approval_reason_code_type_0 import ApprovalReasonCodeType0
from .approval_signature_type_0 import ApprovalSignatureType0
from .approval_signature_type_0_alg import ApprovalSignatureType0Alg
from .approval_status import ApprovalStatus
from .audit_checkpoint_webhook import AuditCheckpointWebhook
from .audit_checkpoint_webhook_data import AuditCheckpointWebhookData
from .audit_record import AuditRecord
from .audit_record_actor import AuditRecordActor
from .audit_record_actor_type import AuditRecordActorType
from .audit_record_decision_type_0 import AuditRecordDecisionType0
from .audit_record_list import AuditRecordList
from .audit_record_metadata import AuditRecordMetadata
from .audit_verification import AuditVerification
from .audit_verification_checkpoint_check_type_0 import (
    AuditVerificationCheckpointCheckType0,
)
from .audit_verification_first_invalid_type_0 import AuditVerificationFirstInvalidType0
from .audit_verification_ledger_mismatch_examples_item import (
    AuditVerificationLedgerMismatchExamplesItem,
)
from .audit_verification_ledger_mismatch_examples_item_expected import (
    AuditVerificationLedgerMismatchExamplesItemExpected,
)
from .audit_verification_ledger_mismatch_examples_item_found import (
    AuditVerificationLedgerMismatchExamplesItemFound,
)
from .audit_verification_ledger_mismatch_examples_item_kind import (
    AuditVerificationLedgerMismatchExamplesItemKind,
)
from .authorization_adjusted_webhook import AuthorizationAdjustedWebhook
from .authorization_adjusted_webhook_data_type_1 import (
    AuthorizationAdjustedWebhookDataType1,
)
from .authorization_adjusted_webhook_data_type_1_rail import (
    AuthorizationAdjustedWebhookDataType1Rail,
)
from .authorization_captured_webhook import AuthorizationCapturedWebhook
from .authorization_expired_webhook import AuthorizationExpiredWebhook
from .authorization_voided_webhook import AuthorizationVoidedWebhook
from .authorize_approved_webhook import AuthorizeApprovedWebhook
from .authorize_denied_webhook import AuthorizeDeniedWebhook
from .authorize_held_webhook import AuthorizeHeldWebhook
from .created_api_key import CreatedApiKey
from .created_api_key_created_via import CreatedApiKeyCreatedVia
from .created_api_key_mode import CreatedApiKeyMode
from .created_api_key_role import CreatedApiKeyRole
from .decision import Decision
from .decision_approvals_item import DecisionApprovalsItem
from .decision_capture_type_0 import DecisionCaptureType0
from .decision_capture_type_0_metadata_type_0 import DecisionCaptureType0MetadataType0
from .decision_capture_type_0_signature_type_0 import DecisionCaptureType0SignatureType0
from .decision_capture_type_0_signature_type_0_alg import (
    DecisionCaptureType0SignatureType0Alg,
)
from .decision_capture_type_0_status import DecisionCaptureType0Status
from .decision_decision import DecisionDecision
from .decision_event_data import DecisionEventData
from .decision_event_data_approvals_item import DecisionEventDataApprovalsItem
from .decision_event_data_capture_type_0 import DecisionEventDataCaptureType0
from .decision_event_data_capture_type_0_metadata_type_0 import (
    DecisionEventDataCaptureType0MetadataType0,
)
from .decision_event_data_capture_type_0_signature_type_0 import (
    DecisionEventDataCaptureType0SignatureType0,
)
from .decision_event_data_capture_type_0_signature_type_0_alg import (
    DecisionEventDataCaptureType0SignatureType0Alg,
)
from .decision_event_data_capture_type_0_status import (
    DecisionEventDataCaptureType0Status,
)
from .decision_event_data_decision import DecisionEventDataDecision
from .decision_event_data_mandate_type_0 import DecisionEventDataMandateType0
from .decision_event_data_metadata import DecisionEventDataMetadata
from .decision_event_data_rail_type_0 import DecisionEventDataRailType0
from .decision_event_data_rail_type_0_type import DecisionEventDataRailType0Type
from .decision_event_data_reason_code_type_0 import DecisionEventDataReasonCodeType0
from .decision_event_data_signature_type_0 import DecisionEventDataSignatureType0
from .decision_event_data_signature_type_0_alg import DecisionEventDataSignatureType0Alg
from .decision_event_data_status import DecisionEventDataStatus
from .decision_mandate_type_0 import DecisionMandateType0
from .decision_metadata import DecisionMetadata
from .decision_rail_type_0 import DecisionRailType0
from .decision_rail_type_0_type import DecisionRailType0Type
from .decision_reason_code_type_0 import DecisionReasonCodeType0
from .decision_signature_type_0 import DecisionSignatureType0
from .decision_signature_type_0_alg import DecisionSignatureType0Alg
from .decision_status import DecisionStatus
from .deleted_policy import DeletedPolicy
from .deleted_rail_connection import DeletedRailConnection
from .deleted_webhook_endpoint import DeletedWebhookEndpoint
from .error import Error
from .error_error import ErrorError
from .error_error_code import ErrorErrorCode
from .event_list import EventList
from .event_type_0 import EventType0
from .event_type_1 import EventType1
from .event_type_2 import EventType2
from .event_type_3 import EventType3
from .event_type_4 import EventType4
from .event_type_5 import EventType5
from .event_type_6 import EventType6
from .event_type_7 import EventType7
from .event_type_8 import EventType8
from .event_type_9 import EventType9
from .event_type_9_data_type_1 import EventType9DataType1
from .event_type_9_data_type_1_rail import EventType9DataType1Rail
from .event_type_10 import EventType10
from .event_type_10_data import EventType10Data
from .get_v1_agents_id_keys_status import GetV1AgentsIdKeysStatus
from .get_v1_agents_status import GetV1AgentsStatus
from .get_v1_approvals_status import GetV1ApprovalsStatus
from .get_v1_audit_logs_decision import GetV1AuditLogsDecision
from .get_v1_events_type import GetV1EventsType
from .get_v1_mandates_status import GetV1MandatesStatus
from .get_v1_policies_active import GetV1PoliciesActive
from .health import Health
from .jwks import JWKS
from .jwks_keys_item_type_0 import JWKSKeysItemType0
from .jwks_keys_item_type_1 import JWKSKeysItemType1
from .mandate import Mandate
from .mandate_list import MandateList
from .mandate_metadata import MandateMetadata
from .mandate_open_mandate import MandateOpenMandate
from .mandate_open_mandate_cnf import MandateOpenMandateCnf
from .mandate_open_mandate_cnf_jwk import MandateOpenMandateCnfJwk
from .mandate_open_mandate_constraints_item import MandateOpenMandateConstraintsItem
from .mandate_status import MandateStatus
from .mandate_verification import MandateVerification
from .mandate_verification_error_type_0 import MandateVerificationErrorType0
from .mandate_verification_status import MandateVerificationStatus
from .open_api_document import OpenApiDocument
from .open_api_document_components import OpenApiDocumentComponents
from .open_api_document_info import OpenApiDocumentInfo
from .open_api_document_paths import OpenApiDocumentPaths
from .open_api_document_webhooks import OpenApiDocumentWebhooks
from .patch_v1_agents_id_body import PatchV1AgentsIdBody
from .patch_v1_agents_id_body_kyc_status import PatchV1AgentsIdBodyKycStatus
from .patch_v1_agents_id_body_metadata import PatchV1AgentsIdBodyMetadata
from .patch_v1_agents_id_body_status import PatchV1AgentsIdBodyStatus
from .patch_v1_decisions_id_capture_body import PatchV1DecisionsIdCaptureBody
from .patch_v1_decisions_id_capture_body_metadata import (
    PatchV1DecisionsIdCaptureBodyMetadata,
)
from .patch_v1_policies_id_body import PatchV1PoliciesIdBody
from .patch_v1_policies_id_body_approval_rules_item import (
    PatchV1PoliciesIdBodyApprovalRulesItem,
)
from .patch_v1_policies_id_body_auto_freeze_type_0 import (
    PatchV1PoliciesIdBodyAutoFreezeType0,
)
from .patch_v1_policies_id_body_velocity_limits_item_type_0 import (
    PatchV1PoliciesIdBodyVelocityLimitsItemType0,
)
from .patch_v1_policies_id_body_velocity_limits_item_type_1 import (
    PatchV1PoliciesIdBodyVelocityLimitsItemType1,
)
from .patch_v1_webhook_endpoints_id_body import PatchV1WebhookEndpointsIdBody
from .patch_v1_webhook_endpoints_id_body_events_item import (
    PatchV1WebhookEndpointsIdBodyEventsItem,
)
from .policy import Policy
from .policy_approval_rules_item import PolicyApprovalRulesItem
from .policy_auto_freeze_type_0 import PolicyAutoFreezeType0
from .policy_list import PolicyList
from .policy_simulation import PolicySimulation
from .policy_simulation_results_item import PolicySimulationResultsItem
from .policy_simulation_results_item_actual import PolicySimulationResultsItemActual
from .policy_simulation_results_item_actual_decision import (
    PolicySimulationResultsItemActualDecision,
)
from .policy_simulation_results_item_actual_reason_code_type_0 import (
    PolicySimulationResultsItemActualReasonCodeType0,
)
from .policy_simulation_results_item_hold import PolicySimulationResultsItemHold
from .policy_simulation_results_item_request import PolicySimulationResultsItemRequest
from .policy_simulation_results_item_request_metadata import (
    PolicySimulationResultsItemRequestMetadata,
)
from .policy_simulation_results_item_would_be import PolicySimulationResultsItemWouldBe
from .policy_simulation_results_item_would_be_decision import (
    PolicySimulationResultsItemWouldBeDecision,
)
from .policy_simulation_results_item_would_be_reason_code_type_0 import (
    PolicySimulationResultsItemWouldBeReasonCodeType0,
)
from .policy_simulation_summary import PolicySimulationSummary
from .policy_velocity_limits_item import PolicyVelocityLimitsItem
from .post_agents_body import PostAgentsBody
from .post_authorize_body import PostAuthorizeBody
from .post_rails_stripe_issuing_id_body import PostRailsStripeIssuingIdBody
from .post_rails_stripe_issuing_id_body_data import PostRailsStripeIssuingIdBodyData
from .post_rails_stripe_issuing_id_body_data_object import (
    PostRailsStripeIssuingIdBodyDataObject,
)
from .post_v1_agents_body import PostV1AgentsBody
from .post_v1_agents_body_metadata import PostV1AgentsBodyMetadata
from .post_v1_agents_id_keys_body import PostV1AgentsIdKeysBody
from .post_v1_agents_id_keys_body_jwk import PostV1AgentsIdKeysBodyJwk
from .post_v1_agents_id_keys_body_jwk_crv import PostV1AgentsIdKeysBodyJwkCrv
from .post_v1_agents_id_keys_body_jwk_kty import PostV1AgentsIdKeysBodyJwkKty
from .post_v1_api_keys_body import PostV1ApiKeysBody
from .post_v1_api_keys_body_mode import PostV1ApiKeysBodyMode
from .post_v1_api_keys_body_role import PostV1ApiKeysBodyRole
from .post_v1_approvals_decision_id_approve_body import (
    PostV1ApprovalsDecisionIdApproveBody,
)
from .post_v1_approvals_decision_id_deny_body import PostV1ApprovalsDecisionIdDenyBody
from .post_v1_authorization_tokens_verify_body import (
    PostV1AuthorizationTokensVerifyBody,
)
from .post_v1_authorize_body import PostV1AuthorizeBody
from .post_v1_authorize_body_metadata import PostV1AuthorizeBodyMetadata
from .post_v1_decisions_id_capture_body import PostV1DecisionsIdCaptureBody
from .post_v1_decisions_id_capture_body_metadata import (
    PostV1DecisionsIdCaptureBodyMetadata,
)
from .post_v1_decisions_id_void_body import PostV1DecisionsIdVoidBody
from .post_v1_events_id_redeliver_body import PostV1EventsIdRedeliverBody
from .post_v1_mandates_body import PostV1MandatesBody
from .post_v1_mandates_body_execution_window import PostV1MandatesBodyExecutionWindow
from .post_v1_mandates_body_metadata import PostV1MandatesBodyMetadata
from .post_v1_mandates_body_payees_item import PostV1MandatesBodyPayeesItem
from .post_v1_mandates_body_payment_instruments_item import (
    PostV1MandatesBodyPaymentInstrumentsItem,
)
from .post_v1_mandates_body_recurrence import PostV1MandatesBodyRecurrence
from .post_v1_mandates_body_recurrence_frequency import (
    PostV1MandatesBodyRecurrenceFrequency,
)
from .post_v1_mandates_verify_body import PostV1MandatesVerifyBody
from .post_v1_policies_body import PostV1PoliciesBody
from .post_v1_policies_body_approval_rules_item import (
    PostV1PoliciesBodyApprovalRulesItem,
)
from .post_v1_policies_body_auto_freeze_type_0 import PostV1PoliciesBodyAutoFreezeType0
from .post_v1_policies_body_velocity_limits_item_type_0 import (
    PostV1PoliciesBodyVelocityLimitsItemType0,
)
from .post_v1_policies_body_velocity_limits_item_type_1 import (
    PostV1PoliciesBodyVelocityLimitsItemType1,
)
from .post_v1_policies_simulate_body import PostV1PoliciesSimulateBody
from .post_v1_policies_simulate_body_policy import PostV1PoliciesSimulateBodyPolicy
from .post_v1_policies_simulate_body_policy_approval_rules_item import (
    PostV1PoliciesSimulateBodyPolicyApprovalRulesItem,
)
from .post_v1_policies_simulate_body_policy_auto_freeze_type_0 import (
    PostV1PoliciesSimulateBodyPolicyAutoFreezeType0,
)
from .post_v1_policies_simulate_body_policy_velocity_limits_item_type_0 import (
    PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0,
)
from .post_v1_policies_simulate_body_policy_velocity_limits_item_type_1 import (
    PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType1,
)
from .post_v1_policies_simulate_body_requests_item import (
    PostV1PoliciesSimulateBodyRequestsItem,
)
from .post_v1_policies_simulate_body_requests_item_metadata import (
    PostV1PoliciesSimulateBodyRequestsItemMetadata,
)
from .post_v1_rail_connections_body import PostV1RailConnectionsBody
from .post_v1_rail_connections_body_on_timeout import PostV1RailConnectionsBodyOnTimeout
from .post_v1_webhook_endpoints_body import PostV1WebhookEndpointsBody
from .post_v1_webhook_endpoints_body_events_item import (
    PostV1WebhookEndpointsBodyEventsItem,
)
from .post_v1_webhook_endpoints_id_rotate_secret_body import (
    PostV1WebhookEndpointsIdRotateSecretBody,
)
from .post_vaults_body import PostVaultsBody
from .quickstart_agent import QuickstartAgent
from .quickstart_agent_kyc_status import QuickstartAgentKycStatus
from .quickstart_agent_metadata import QuickstartAgentMetadata
from .quickstart_agent_status import QuickstartAgentStatus
from .quickstart_authorization import QuickstartAuthorization
from .quickstart_authorization_reason_code_type_0 import (
    QuickstartAuthorizationReasonCodeType0,
)
from .quickstart_authorization_status import QuickstartAuthorizationStatus
from .rail_answer_type_0 import RailAnswerType0
from .rail_answer_type_0_metadata import RailAnswerType0Metadata
from .rail_answer_type_1 import RailAnswerType1
from .rail_connection import RailConnection
from .rail_connection_list import RailConnectionList
from .rail_connection_on_timeout import RailConnectionOnTimeout
from .rail_connection_type import RailConnectionType
from .readiness import Readiness
from .readiness_database import ReadinessDatabase
from .readiness_outbox import ReadinessOutbox
from .readiness_status import ReadinessStatus
from .readiness_workflow_engine import ReadinessWorkflowEngine
from .token_claims import TokenClaims
from .token_verification import TokenVerification
from .token_verification_error_type_0 import TokenVerificationErrorType0
from .usage import Usage
from .usage_daily_item import UsageDailyItem
from .usage_plan import UsagePlan
from .vault import Vault
from .webhook_delivery import WebhookDelivery
from .webhook_delivery_attempts_item import WebhookDeliveryAttemptsItem
from .webhook_delivery_list import WebhookDeliveryList
from .webhook_delivery_status import WebhookDeliveryStatus
from .webhook_endpoint import WebhookEndpoint
from .webhook_endpoint_events_item import WebhookEndpointEventsItem
from .webhook_endpoint_list import WebhookEndpointList
from .webhook_endpoint_with_secret import WebhookEndpointWithSecret
from .webhook_endpoint_with_secret_events_item import (
    WebhookEndpointWithSecretEventsItem,
)

__all__ = (
    "JWKS",
    "Agent",
    "AgentFrozenWebhook",
    "AgentKey",
    "AgentKeyAlg",
    "AgentKeyJwkType0",
    "AgentKeyJwkType1",
    "AgentKeyList",
    "AgentKeyStatus",
    "AgentKycStatus",
    "AgentList",
    "AgentMetadata",
    "AgentStatus",
    "ApiKey",
    "ApiKeyCreatedVia",
    "ApiKeyList",
    "ApiKeyMode",
    "ApiKeyRole",
    "Approval",
    "ApprovalApprovalsItem",
    "ApprovalCaptureType0",
    "ApprovalCaptureType0MetadataType0",
    "ApprovalCaptureType0SignatureType0",
    "ApprovalCaptureType0SignatureType0Alg",
    "ApprovalCaptureType0Status",
    "ApprovalCompletedData",
    "ApprovalCompletedDataOutcome",
    "ApprovalCompletedDataReasonCodeType0",
    "ApprovalCompletedWebhook",
    "ApprovalDecision",
    "ApprovalEscalatedData",
    "ApprovalEscalatedDataApprovalsItem",
    "ApprovalEscalatedWebhook",
    "ApprovalList",
    "ApprovalMandateType0",
    "ApprovalMetadata",
    "ApprovalRailType0",
    "ApprovalRailType0Type",
    "ApprovalReasonCodeType0",
    "ApprovalSignatureType0",
    "ApprovalSignatureType0Alg",
    "ApprovalStatus",
    "AuditCheckpointWebhook",
    "AuditCheckpointWebhookData",
    "AuditRecord",
    "AuditRecordActor",
    "AuditRecordActorType",
    "AuditRecordDecisionType0",
    "AuditRecordList",
    "AuditRecordMetadata",
    "AuditVerification",
    "AuditVerificationCheckpointCheckType0",
    "AuditVerificationFirstInvalidType0",
    "AuditVerificationLedgerMismatchExamplesItem",
    "AuditVerificationLedgerMismatchExamplesItemExpected",
    "AuditVerificationLedgerMismatchExamplesItemFound",
    "AuditVerificationLedgerMismatchExamplesItemKind",
    "AuthorizationAdjustedWebhook",
    "AuthorizationAdjustedWebhookDataType1",
    "AuthorizationAdjustedWebhookDataType1Rail",
    "AuthorizationCapturedWebhook",
    "AuthorizationExpiredWebhook",
    "AuthorizationVoidedWebhook",
    "AuthorizeApprovedWebhook",
    "AuthorizeDeniedWebhook",
    "AuthorizeHeldWebhook",
    "CreatedApiKey",
    "CreatedApiKeyCreatedVia",
    "CreatedApiKeyMode",
    "CreatedApiKeyRole",
    "Decision",
    "DecisionApprovalsItem",
    "DecisionCaptureType0",
    "DecisionCaptureType0MetadataType0",
    "DecisionCaptureType0SignatureType0",
    "DecisionCaptureType0SignatureType0Alg",
    "DecisionCaptureType0Status",
    "DecisionDecision",
    "DecisionEventData",
    "DecisionEventDataApprovalsItem",
    "DecisionEventDataCaptureType0",
    "DecisionEventDataCaptureType0MetadataType0",
    "DecisionEventDataCaptureType0SignatureType0",
    "DecisionEventDataCaptureType0SignatureType0Alg",
    "DecisionEventDataCaptureType0Status",
    "DecisionEventDataDecision",
    "DecisionEventDataMandateType0",
    "DecisionEventDataMetadata",
    "DecisionEventDataRailType0",
    "DecisionEventDataRailType0Type",
    "DecisionEventDataReasonCodeType0",
    "DecisionEventDataSignatureType0",
    "DecisionEventDataSignatureType0Alg",
    "DecisionEventDataStatus",
    "DecisionMandateType0",
    "DecisionMetadata",
    "DecisionRailType0",
    "DecisionRailType0Type",
    "DecisionReasonCodeType0",
    "DecisionSignatureType0",
    "DecisionSignatureType0Alg",
    "DecisionStatus",
    "DeletedPolicy",
    "DeletedRailConnection",
    "DeletedWebhookEndpoint",
    "Error",
    "ErrorError",
    "ErrorErrorCode",
    "EventList",
    "EventType0",
    "EventType1",
    "EventType2",
    "EventType3",
    "EventType4",
    "EventType5",
    "EventType6",
    "EventType7",
    "EventType8",
    "EventType9",
    "EventType9DataType1",
    "EventType9DataType1Rail",
    "EventType10",
    "EventType10Data",
    "GetV1AgentsIdKeysStatus",
    "GetV1AgentsStatus",
    "GetV1ApprovalsStatus",
    "GetV1AuditLogsDecision",
    "GetV1EventsType",
    "GetV1MandatesStatus",
    "GetV1PoliciesActive",
    "Health",
    "JWKSKeysItemType0",
    "JWKSKeysItemType1",
    "Mandate",
    "MandateList",
    "MandateMetadata",
    "MandateOpenMandate",
    "MandateOpenMandateCnf",
    "MandateOpenMandateCnfJwk",
    "MandateOpenMandateConstraintsItem",
    "MandateStatus",
    "MandateVerification",
    "MandateVerificationErrorType0",
    "MandateVerificationStatus",
    "OpenApiDocument",
    "OpenApiDocumentComponents",
    "OpenApiDocumentInfo",
    "OpenApiDocumentPaths",
    "OpenApiDocumentWebhooks",
    "PatchV1AgentsIdBody",
    "PatchV1AgentsIdBodyKycStatus",
    "PatchV1AgentsIdBodyMetadata",
    "PatchV1AgentsIdBodyStatus",
    "PatchV1DecisionsIdCaptureBody",
    "PatchV1DecisionsIdCaptureBodyMetadata",
    "PatchV1PoliciesIdBody",
    "PatchV1PoliciesIdBodyApprovalRulesItem",
    "PatchV1PoliciesIdBodyAutoFreezeType0",
    "PatchV1PoliciesIdBodyVelocityLimitsItemType0",
    "PatchV1PoliciesIdBodyVelocityLimitsItemType1",
    "PatchV1WebhookEndpointsIdBody",
    "PatchV1WebhookEndpointsIdBodyEventsItem",
    "Policy",
    "PolicyApprovalRulesItem",
    "PolicyAutoFreezeType0",
    "PolicyList",
    "PolicySimulation",
    "PolicySimulationResultsItem",
    "PolicySimulationResultsItemActual",
    "PolicySimulationResultsItemActualDecision",
    "PolicySimulationResultsItemActualReasonCodeType0",
    "PolicySimulationResultsItemHold",
    "PolicySimulationResultsItemRequest",
    "PolicySimulationResultsItemRequestMetadata",
    "PolicySimulationResultsItemWouldBe",
    "PolicySimulationResultsItemWouldBeDecision",
    "PolicySimulationResultsItemWouldBeReasonCodeType0",
    "PolicySimulationSummary",
    "PolicyVelocityLimitsItem",
    "PostAgentsBody",
    "PostAuthorizeBody",
    "PostRailsStripeIssuingIdBody",
    "PostRailsStripeIssuingIdBodyData",
    "PostRailsStripeIssuingIdBodyDataObject",
    "PostV1AgentsBody",
    "PostV1AgentsBodyMetadata",
    "PostV1AgentsIdKeysBody",
    "PostV1AgentsIdKeysBodyJwk",
    "PostV1AgentsIdKeysBodyJwkCrv",
    "PostV1AgentsIdKeysBodyJwkKty",
    "PostV1ApiKeysBody",
    "PostV1ApiKeysBodyMode",
    "PostV1ApiKeysBodyRole",
    "PostV1ApprovalsDecisionIdApproveBody",
    "PostV1ApprovalsDecisionIdDenyBody",
    "PostV1AuthorizationTokensVerifyBody",
    "PostV1AuthorizeBody",
    "PostV1AuthorizeBodyMetadata",
    "PostV1DecisionsIdCaptureBody",
    "PostV1DecisionsIdCaptureBodyMetadata",
    "PostV1DecisionsIdVoidBody",
    "PostV1EventsIdRedeliverBody",
    "PostV1MandatesBody",
    "PostV1MandatesBodyExecutionWindow",
    "PostV1MandatesBodyMetadata",
    "PostV1MandatesBodyPayeesItem",
    "PostV1MandatesBodyPaymentInstrumentsItem",
    "PostV1MandatesBodyRecurrence",
    "PostV1MandatesBodyRecurrenceFrequency",
    "PostV1MandatesVerifyBody",
    "PostV1PoliciesBody",
    "PostV1PoliciesBodyApprovalRulesItem",
    "PostV1PoliciesBodyAutoFreezeType0",
    "PostV1PoliciesBodyVelocityLimitsItemType0",
    "PostV1PoliciesBodyVelocityLimitsItemType1",
    "PostV1PoliciesSimulateBody",
    "PostV1PoliciesSimulateBodyPolicy",
    "PostV1PoliciesSimulateBodyPolicyApprovalRulesItem",
    "PostV1PoliciesSimulateBodyPolicyAutoFreezeType0",
    "PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType0",
    "PostV1PoliciesSimulateBodyPolicyVelocityLimitsItemType1",
    "PostV1PoliciesSimulateBodyRequestsItem",
    "PostV1PoliciesSimulateBodyRequestsItemMetadata",
    "PostV1RailConnectionsBody",
    "PostV1RailConnectionsBodyOnTimeout",
    "PostV1WebhookEndpointsBody",
    "PostV1WebhookEndpointsBodyEventsItem",
    "PostV1WebhookEndpointsIdRotateSecretBody",
    "PostVaultsBody",
    "QuickstartAgent",
    "QuickstartAgentKycStatus",
    "QuickstartAgentMetadata",
    "QuickstartAgentStatus",
    "QuickstartAuthorization",
    "QuickstartAuthorizationReasonCodeType0",
    "QuickstartAuthorizationStatus",
    "RailAnswerType0",
    "RailAnswerType0Metadata",
    "RailAnswerType1",
    "RailConnection",
    "RailConnectionList",
    "RailConnectionOnTimeout",
    "RailConnectionType",
    "Readiness",
    "ReadinessDatabase",
    "ReadinessOutbox",
    "ReadinessStatus",
    "ReadinessWorkflowEngine",
    "TokenClaims",
    "TokenVerification",
    "TokenVerificationErrorType0",
    "Usage",
    "UsageDailyItem",
    "UsagePlan",
    "Vault",
    "WebhookDelivery",
    "WebhookDeliveryAttemptsItem",
    "WebhookDeliveryList",
    "WebhookDeliveryStatus",
    "WebhookEndpoint",
    "WebhookEndpointEventsItem",
    "WebhookEndpointList",
    "WebhookEndpointWithSecret",
    "WebhookEndpointWithSecretEventsItem",
)
