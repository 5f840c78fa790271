import type { ApprovalEntry, DbOrTrx } from '../db/database.js';
import { keyAncestry } from '../keys/keys.repository.js';

/** Distinct approvers so far: a key id each, and every operator signal as one ("operator"). */
export function approverIds(approvals: readonly ApprovalEntry[]): Set<string> {
  return new Set(approvals.map((a) => a.api_key_id ?? 'operator'));
}

/**
 * Whether `keyId` counts as the requester of a hold (DECISIONS §8, "A key cannot lend its hands to
 * itself"): the key that asked, or a key descending from it (minted by it through the API, directly
 * or through other keys). Such a key may not approve the hold in live mode. Keys it descends from
 * do not count: the admin that minted the requesting key is someone else.
 */
export async function countsAsRequester(db: DbOrTrx, requestedBy: string | null, keyId: string): Promise<boolean> {
  if (requestedBy === null) return false;
  if (requestedBy === keyId) return true;
  return (await keyAncestry(db, [keyId])).get(keyId)!.has(requestedBy);
}

/**
 * The recorded approval `keyId` counts as one approver with (DECISIONS §16 and §8): its own, or one
 * by a key it descends from or by a key descending from it. Keys minted side by side by one key
 * are not related this way and stay distinct approvers. Undefined when this key's approval would
 * be a new approver.
 */
export async function sameApproverAs(db: DbOrTrx, approvals: readonly ApprovalEntry[], keyId: string): Promise<ApprovalEntry | undefined> {
  const byKey = approvals.filter((a) => a.api_key_id !== null);
  if (byKey.length === 0) return undefined;
  const own = byKey.find((a) => a.api_key_id === keyId);
  if (own) return own;
  const lines = await keyAncestry(db, [keyId, ...byKey.map((a) => a.api_key_id!)]);
  const mine = lines.get(keyId)!;
  return byKey.find((a) => mine.has(a.api_key_id!) || lines.get(a.api_key_id!)!.has(keyId));
}
