import type { ApprovalEntry } from '../db/database.js';

/** Distinct approvers so far: a key id each, and every operator signal as one ("operator"). */
export function approverIds(approvals: readonly ApprovalEntry[]): Set<string> {
  return new Set(approvals.map((a) => a.api_key_id ?? 'operator'));
}
