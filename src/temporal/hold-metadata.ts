/**
 * How a held request reads in the Temporal UI without opening anything: the workflow's user
 * metadata (a one-line static summary, static details with the reason and the policy) and its memo.
 * Agent, policy and vendor names are tenants' text shown to operators: control characters become
 * spaces and markdown is escaped, so a name can never add a link, an image or HTML to the page.
 */
import type { HoldNames } from '../approvals/hold-engine.js';
import type { DecisionRow } from '../decisions/decision.view.js';
import { formatMoney } from '../kernel/money.js';

/** Server limits are larger (summary 400 bytes); a summary is one glance, so long names are cut. */
const NAME_IN_SUMMARY_CHARS = 48;
const SUMMARY_MAX_CHARS = 200;
const DETAIL_VALUE_CHARS = 1_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** One line of plain text, markdown's active characters escaped, at most `max` characters. */
export function markdownText(value: string, max: number): string {
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return cut.replace(/[\\`*_[\]()<>!|#~{}]/g, (c) => `\\${c}`);
}

/** "25 Nov 14:00 UTC". */
export function shortUtc(at: Date): string {
  const hh = String(at.getUTCHours()).padStart(2, '0');
  const mm = String(at.getUTCMinutes()).padStart(2, '0');
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]} ${hh}:${mm} UTC`;
}

const expiry = (d: DecisionRow) => d.expires_at ?? d.created_at;

/** "82.00 USD at aws.amazon.com for research-bot (agt_…), expires 25 Nov 14:00 UTC". */
export function heldSummary(d: DecisionRow, names: HoldNames = {}): string {
  const agent = names.agentName ? `${markdownText(names.agentName, NAME_IN_SUMMARY_CHARS)} (${d.agent_id})` : d.agent_id;
  const line = `${formatMoney(d.amount, d.currency)} at ${markdownText(d.vendor, NAME_IN_SUMMARY_CHARS)} for ${agent}, expires ${shortUtc(expiry(d))}`;
  return line.length > SUMMARY_MAX_CHARS ? `${line.slice(0, SUMMARY_MAX_CHARS - 1)}…` : line;
}

/** Markdown lines: what is asked, by whom, why it is held, under which policy, until when. */
export function heldDetails(d: DecisionRow, names: HoldNames = {}): string {
  const v = (text: string) => markdownText(text, DETAIL_VALUE_CHARS);
  const named = (name: string | null | undefined, id: string) => (name ? `${v(name)} (\`${id}\`)` : `\`${id}\``);
  const lines = [
    `**Request:** ${formatMoney(d.amount, d.currency)} at ${v(d.vendor)}${d.category ? ` (${v(d.category)})` : ''}, ${d.livemode ? 'live' : 'test'} mode`,
    `**Agent:** ${named(names.agentName, d.agent_id)}`,
    `**Reason:** ${d.reason ? v(d.reason) : 'held for review'}${d.reason_code ? ` (\`${d.reason_code}\`)` : ''}`,
    `**Policy:** ${d.policy_id ? named(names.policyName, d.policy_id) : 'none'}`,
    `**Expires:** ${expiry(d).toISOString()}`,
    ...(d.approvals_required && d.approvals_required > 1 ? [`**Approvals needed:** ${d.approvals_required}`] : []),
    `**Decision:** \`${d.id}\``,
  ];
  return lines.join('\n\n');
}

/** The memo: the same summary, and the agent by name as well as by id (plain values, not markdown). */
export function heldMemo(d: DecisionRow, names: HoldNames = {}) {
  return {
    summary: heldSummary(d, names),
    agentId: d.agent_id,
    agentName: names.agentName ?? null,
    policyId: d.policy_id,
    policyName: names.policyName ?? null,
    reason: d.reason ?? '',
    expiresAt: expiry(d).toISOString(),
  };
}
