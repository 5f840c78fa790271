import { defineSearchAttributeKey } from '@temporalio/common';

/** Typed search attributes operators use to find held requests in the Temporal UI. No personal data. */
export const AgentIdKey = defineSearchAttributeKey('AgentId', 'KEYWORD');
export const PolicyIdKey = defineSearchAttributeKey('PolicyId', 'KEYWORD');
export const VendorKey = defineSearchAttributeKey('Vendor', 'KEYWORD');
export const AmountMinorKey = defineSearchAttributeKey('AmountMinor', 'INT');
export const LivemodeKey = defineSearchAttributeKey('Livemode', 'BOOL');
export const ApprovalStatusKey = defineSearchAttributeKey('ApprovalStatus', 'KEYWORD');

export const ALL_SEARCH_ATTRIBUTE_KEYS = [AgentIdKey, PolicyIdKey, VendorKey, AmountMinorKey, LivemodeKey, ApprovalStatusKey];
